"""Does the ``rewrites`` family's program actually fire the rewrite it was written for?

    python bench/rewrites_fired.py [--seeds 3] [--patterns REGEX,...] [--json OUT]

For every catalog entry (the rewrites of the installed torch that a template matches), the
first candidate of seeds ``0 .. seeds-1`` (the generator restricted to that entry) is compiled
once in a worker by the coverage job (``torchsmith.generate.coverage:collect``, the ``call`` job
behind ``WorkerClient.coverage``), with the program's declared ``compile_config`` /
``check_options``. The worker runs with ``TORCHINDUCTOR_PATTERN_MATCH_DEBUG=1``, so besides the
``inductor:<counter>`` / ``lowering:`` / ``mm:`` features the job reports, Inductor's
per-pattern hit counts come back (``pattern:<name>``, e.g. ``pattern:_sfdp_pattern_5_inference``).
A program "fired" when a feature of its ``expect=`` note is present, or (``absent=``: a rewritten
op that must never reach lowering) when none of those is. Prints per entry ``fired/programs``,
per template and overall; programs whose compile failed are counted apart.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from typing import Any

from torchsmith.check import effective_options
from torchsmith.execute.protocol import Request, worker_env
from torchsmith.execute.worker import Worker
from torchsmith.generate.coverage import COLLECT_FUNCTION, report_features
from torchsmith.generate.rewrites.catalog import features_fired
from torchsmith.generate.rewrites.generator import RewritesGenerator, note_of, render_program
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program

PER_PATTERN = "inductor_pattern_matcher_per_pattern"


def features(worker: Worker, program: Program, timeout: float) -> tuple[set[str], str | None]:
    """The coverage features of one compile of ``program`` (plus ``pattern:`` hits), and the
    error when the compile or run failed."""
    options = effective_options(program, CheckOptions(timeout=timeout, localize=False))
    outcome = worker.run(Request.call(COLLECT_FUNCTION, program, options), timeout, 8192)
    if outcome.status != "result" or not outcome.result:
        return set(), f"{outcome.status}: {outcome.error.strip()[-200:]}"
    report: dict[str, Any] = outcome.result
    feats = set(report_features(report))
    feats |= {f"pattern:{k}" for k in (report.get("counters") or {}).get(PER_PATTERN, {})}
    return feats, report.get("error")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3, help="programs per catalog entry")
    ap.add_argument("--patterns", default=None, help="only entries/templates matching these")
    ap.add_argument("--timeout", type=float, default=180.0)
    ap.add_argument("--json", dest="json_out", default=None)
    args = ap.parse_args()

    worker = Worker(memory_mb=8192, env={**worker_env(), "TORCHINDUCTOR_PATTERN_MATCH_DEBUG": "1"})
    worker.run(Request.ping(), 300)
    gen = RewritesGenerator(patterns=args.patterns)
    print(f"torch {gen.catalog.torch_version}: {len(gen.catalog)} catalog entries,"
          f" {len(gen.table)} templates; {len(gen.catalog.uncovered)} registered rewrites uncovered")  # fmt: skip
    rows: list[dict[str, Any]] = []
    t0 = time.monotonic()
    for tpl, entries in gen.table:
        for entry in entries:
            fired = errors = 0
            for seed in range(args.seeds):
                program = render_program(seed, 0, [(tpl, [entry])])
                feats, error = features(worker, program, args.timeout)
                expect = tuple(x for x in note_of(program, "expect").split("|") if x)
                absent = tuple(x for x in note_of(program, "absent").split("|") if x)
                if error:
                    errors += 1
                    print(f"    {entry.name} seed {seed}: {error[:160]}")
                elif features_fired((expect, absent), feats):
                    fired += 1
            ok = args.seeds - errors
            rows.append({"entry": entry.name, "template": tpl.name, "source": entry.source,
                         "programs": args.seeds, "compiled": ok, "fired": fired})  # fmt: skip
            rate = f"{fired}/{ok}" if ok else "-"
            print(f"{entry.name:52s} {tpl.name:20s} fired {rate:5s} errors {errors}", flush=True)
    worker.close()
    per_tpl: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        per_tpl[r["template"]][0] += r["fired"]
        per_tpl[r["template"]][1] += r["compiled"]
    fired = sum(r["fired"] for r in rows)
    compiled = sum(r["compiled"] for r in rows)
    never = [r["entry"] for r in rows if r["compiled"] and not r["fired"]]
    print("\nper template:")
    for name, (f, n) in per_tpl.items():
        print(f"  {name:22s} {f}/{n}")
    print(f"\noverall: {fired}/{compiled} programs fired their rewrite"
          f" ({100 * fired / max(compiled, 1):.1f} %), {len(rows)} entries,"
          f" {sum(1 for r in rows if r['fired'])} fired at least once; never fired: {never}")  # fmt: skip
    print(f"wall {time.monotonic() - t0:.0f} s")
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump({"rows": rows, "uncovered": gen.catalog.uncovered}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
