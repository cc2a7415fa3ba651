"""Generator families: validity and generation speed over N programs, eager-checked in a worker.

    python bench/families.py --family opinfo [-n 200] [--seed 0] [--opt KEY=VALUE ...] [--json OUT]

Runs the family's generator seed after seed with ``GenContext.eager_check`` wired to one
persistent worker (``check_eager``), until ``-n`` programs have been produced (or ``--max-seeds``
seeds were asked). Reports the validity (eager checks that passed / eager checks made), the yield
per seed, programs per minute (wall clock, worker start and the generator's first load excluded),
and, from the programs' ``notes`` (``key=value``), the dtype mix, the mode mix and the distinct
ops used.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from typing import Any

from torchsmith.check import check_eager
from torchsmith.execute.protocol import Request
from torchsmith.execute.worker import Worker
from torchsmith.generate.protocol import GenContext, get_generator
from torchsmith.options import CheckOptions, parse_key_value
from torchsmith.program.format import Program
from torchsmith.verdict import CheckResult


def _pct(counter: Counter[str], total: int) -> dict[str, str]:
    return {k: f"{n} ({100 * n / total:.0f} %)" for k, n in counter.most_common()}


def python_family(gen: Any, figures: dict[str, Any]) -> None:
    """The ``python`` family's own figures (from ``gen.stats``): the fragment mix of the valid
    programs, each fragment's validity (valid tries using it / tries using it) and the feature
    mix (call sequences, before_call, graph breaks, in-place input views, ...)."""
    st = gen.stats
    produced = max(st.produced, 1)
    frag_rate = {
        name: round(st.fragments_valid[name] / n, 3) for name, n in st.fragments_tried.items()
    }
    figures["fragments"] = dict(st.fragments_valid.most_common())
    figures["fragment_validity"] = dict(sorted(frag_rate.items(), key=lambda kv: kv[1]))
    figures["features"] = dict(st.features.most_common())
    print(f"fragments used         {len(st.fragments_valid)}  (in valid programs)")
    print(f"fragment mix           {_pct(st.fragments_valid, produced)}")
    worst = [(k, v) for k, v in figures["fragment_validity"].items() if v < 1.0][:8]
    print(f"fragments < 100 %      {worst or 'none'}")
    print(f"feature mix            {_pct(st.features, produced)}")


def rewrites_family(gen: Any, figures: dict[str, Any]) -> None:
    """The ``rewrites`` family's own figures (from ``gen.stats`` and ``gen.catalog``): catalog
    size, the template mix of the valid programs, each template's validity (valid tries / tries),
    the catalog entries (patterns) reached."""
    st = gen.stats
    produced = max(st.produced, 1)
    rate = {n: round(st.templates_valid[n] / t, 3) for n, t in st.templates_tried.items()}
    figures["catalog_entries"] = len(gen.catalog)
    figures["uncovered"] = len(gen.catalog.uncovered)
    figures["templates"] = dict(st.templates_valid.most_common())
    figures["template_validity"] = dict(sorted(rate.items(), key=lambda kv: kv[1]))
    figures["patterns_reached"] = len(st.patterns_valid)
    print(
        f"catalog entries        {len(gen.catalog)} (uncovered rewrites {len(gen.catalog.uncovered)})"
    )
    print(f"templates used         {len(st.templates_valid)} of {len(gen.table)}")
    print(f"template mix           {_pct(st.templates_valid, produced)}")
    worst = [(k, v) for k, v in figures["template_validity"].items() if v < 1.0][:8]
    print(f"templates < 100 %      {worst or 'none'}")
    print(f"patterns reached       {len(st.patterns_valid)}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--family", default="opinfo", help="generator name (default opinfo)")
    ap.add_argument("-n", type=int, default=200, help="programs to produce (default 200)")
    ap.add_argument("--seed", type=int, default=0, help="first seed")
    ap.add_argument("--max-seeds", type=int, default=None, help="stop after this many seeds")
    ap.add_argument("--opt", action="append", default=[], help="generator option KEY=VALUE")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per eager check")
    ap.add_argument("--json", dest="json_out", default=None, help="write the figures here")
    args = ap.parse_args()

    options = dict(parse_key_value(o) for o in args.opt)
    worker = Worker(memory_mb=8192)
    worker.run(Request.ping(), 300)  # pay the torch import before the clock starts
    check_opts = CheckOptions(timeout=args.timeout, localize=False)
    verdicts: Counter[str] = Counter()
    check_s = 0.0

    def eager(program: Program) -> CheckResult:
        nonlocal check_s
        t = time.monotonic()
        result = check_eager(program, check_opts, worker)
        check_s += time.monotonic() - t
        verdicts[result.verdict.value] += 1
        return result

    gen: Any = get_generator(args.family, **options)
    t = time.monotonic()
    if hasattr(gen, "catalog"):  # (the property loads it)
        n_ops = len(gen.catalog)  # the op database's import is paid once, off the clock
        print(f"catalog                {n_ops} usable ops ({time.monotonic() - t:.1f} s to load)")
    ctx = GenContext(eager_check=eager)
    notes: list[dict[str, str]] = []
    t0 = time.monotonic()
    seed = args.seed
    while len(notes) < args.n and (args.max_seeds is None or seed - args.seed < args.max_seeds):
        program = gen.generate(seed, ctx)
        if program is not None:
            notes.append(dict(n.split("=", 1) for n in program.notes if "=" in n))
        seed += 1
    wall = time.monotonic() - t0
    worker.close()
    if hasattr(gen, "close"):
        gen.close()

    checks = sum(verdicts.values())
    produced = len(notes)
    seeds = seed - args.seed
    dtypes = Counter(n.get("dtype", "?").removeprefix("torch.") for n in notes)
    modes = Counter(n.get("mode", "?") for n in notes)
    ops = Counter(n.get("op", "?") for n in notes)
    figures = {
        "family": args.family,
        "programs": produced,
        "seeds": seeds,
        "eager_checks": checks,
        "validity": round(verdicts["pass"] / checks, 4) if checks else 0.0,
        "yield_per_seed": round(produced / seeds, 4) if seeds else 0.0,
        "wall_s": round(wall, 1),
        "eager_check_s": round(check_s, 1),
        "programs_per_min": round(produced / wall * 60, 1) if wall else 0.0,
        "verdicts": dict(verdicts),
        "dtypes": dict(dtypes.most_common()),
        "modes": dict(modes.most_common()),
        "distinct_ops": len(ops),
        "top_ops": ops.most_common(10),
    }
    if hasattr(gen, "stats") and hasattr(gen.stats, "invalid_ops"):
        figures["invalid_ops"] = gen.stats.invalid_ops.most_common(15)
    print(f"programs               {produced}  (seeds {args.seed}..{seed - 1})")
    print(f"eager checks           {checks}  validity {100 * figures['validity']:.1f} %")
    print(f"yield per seed         {figures['yield_per_seed']}")
    print(f"programs / min         {figures['programs_per_min']}  (wall {wall:.0f} s,"
          f" eager checks {check_s:.0f} s)")  # fmt: skip
    print(f"verdicts               {dict(verdicts)}")
    print(f"dtype mix              {_pct(dtypes, produced)}")
    print(f"mode mix               {_pct(modes, produced)}")
    print(f"distinct ops           {len(ops)}  (most used: {ops.most_common(5)})")
    if "invalid_ops" in figures:
        print(f"ops of invalid tries   {figures['invalid_ops']}")
    if args.family == "python":
        python_family(gen, figures)
    if args.family == "rewrites":
        rewrites_family(gen, figures)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(figures, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
