"""False alarms in a campaign: verdict counts over generated programs, with the probe's effect.

    python bench/false_alarms.py [-n 1000] [--seed 0] [--workers 2] [--timeout 120]
                                 [--budget SECONDS] [--edge-values | --values V] [--json OUT.jsonl]

Generates programs with the graph generator (seeds ``seed .. seed+n-1``, default options) and
checks each with ``check_program(program, CheckOptions(localize=False), worker)`` on crash-safe
workers (one thread per worker). Prints the command line, the counts of ``mismatch``,
``unstable``, ``pass`` and the rest, the raw counts the oracle gave before the sensitivity probe
(the probe records the candidate it re-judged), what the probe cost, and every ``mismatch`` and
``nan-mismatch`` with its confidence for a reader to audit. ``--budget`` stops handing out
programs after that many seconds (the counts then cover the programs checked).
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any


def run(args: argparse.Namespace) -> list[dict[str, Any]]:
    from torchsmith import CheckOptions, check_program
    from torchsmith.execute.protocol import worker_env
    from torchsmith.execute.worker import Worker
    from torchsmith.generate.graph import GenOptions, generate

    gen = GenOptions(values="wild" if args.edge_values else args.values)
    opts = CheckOptions(localize=False, timeout=args.timeout, probe=not args.no_probe)
    seeds = iter(range(args.seed, args.seed + args.n))
    lock = threading.Lock()
    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()

    def next_seed() -> int | None:
        with lock:
            if args.budget and time.perf_counter() - t0 > args.budget:
                return None
            return next(seeds, None)

    def slot() -> None:
        with Worker(memory_mb=args.memory_mb, env=worker_env(args.workers)) as worker:
            while (seed := next_seed()) is not None:
                row: dict[str, Any] = {"seed": seed}
                try:
                    program = generate(seed, gen)
                    r = check_program(program, opts, worker)
                except Exception as e:  # a generator or tool failure is counted, not fatal
                    row.update(verdict="error", reason=f"{type(e).__name__}: {e}"[:300])
                else:
                    probe = r.evidence.get("probe") or {}
                    row.update(
                        verdict=r.verdict.value,
                        phase=r.phase.value if r.phase else None,
                        raw=probe.get("candidate", r.verdict.value),
                        reason=r.reason[:300],
                        confidence=r.evidence.get("confidence"),
                        probe_s=r.timings.get("probe"),
                        probe_runs=len(probe.get("runs", [])),
                        wall=r.timings.get("wall"),
                    )
                with lock:
                    rows.append(row)
                    if args.progress and len(rows) % 25 == 0:
                        dt = time.perf_counter() - t0
                        print(f"  {len(rows)} programs, {dt:.0f} s", file=sys.stderr, flush=True)

    threads = [threading.Thread(target=slot) for _ in range(args.workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows.sort(key=lambda r: r["seed"])
    return rows


def report(rows: list[dict[str, Any]], wall: float) -> str:
    final = Counter(r["verdict"] for r in rows)
    raw = Counter(r.get("raw", r["verdict"]) for r in rows)
    probed = [r for r in rows if r.get("probe_s") is not None]
    lines = [f"programs checked: {len(rows)} in {wall:.0f} s"]
    lines.append(f"{'verdict':<18}{'final':>8}{'raw (no probe)':>16}")
    for v in sorted(set(final) | set(raw), key=lambda v: (-final.get(v, 0), v)):
        lines.append(f"{v:<18}{final.get(v, 0):>8}{raw.get(v, 0):>16}")
    if probed:
        cost = sum(r["probe_s"] for r in probed)
        walls = sum(r.get("wall") or 0 for r in rows)
        lines.append(
            f"probe: ran on {len(probed)} candidates, {cost:.1f} s in all"
            f" ({cost / len(probed):.3f} s each, {sum(r['probe_runs'] for r in probed)} eager runs;"
            f" {100 * cost / max(walls, 1e-9):.1f} % of the checks' wall time)"
        )
        moved = Counter(f"{r['raw']} -> {r['verdict']}" for r in probed)
        lines.append("probe outcomes: " + ", ".join(f"{k}: {n}" for k, n in sorted(moved.items())))
    bugs = [r for r in rows if r["verdict"] in ("mismatch", "nan-mismatch")]
    lines.append(f"\n{len(bugs)} mismatch(es) to audit:")
    for r in bugs:
        c = r.get("confidence") or {}
        conf = f"confidence {c.get('score', '-')} ({c.get('level', 'no probe')})"
        lines.append(f"  gen_{r['seed']}: {r['verdict']}, {conf}: {r['reason']}")
    errors = [r for r in rows if r["verdict"] == "error"]
    for r in errors[:10]:
        lines.append(f"  gen_{r['seed']}: error: {r['reason']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("-n", type=int, default=1000, help="programs to generate (default 1000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per check")
    ap.add_argument("--memory-mb", type=int, default=4096)
    ap.add_argument("--budget", type=float, default=0.0, help="stop after this many seconds")
    ap.add_argument(
        "--edge-values",
        action="store_true",
        help="the blanket edge mode (values=wild), as notes/false-alarms.md measured it",
    )
    ap.add_argument("--values", default="mixed", help="mixed (default), edge, plain or wild")
    ap.add_argument("--no-probe", action="store_true", help="raw verdicts, no probe")
    ap.add_argument("--json", type=Path, help="write one JSON row per program")
    ap.add_argument("--progress", action="store_true")
    args = ap.parse_args(argv)
    print("command: python " + shlex.join(["bench/false_alarms.py", *sys.argv[1:]]), flush=True)
    import torch

    print(f"torch {torch.__version__}, {args.workers} worker(s)", flush=True)
    t0 = time.perf_counter()
    rows = run(args)
    print(report(rows, time.perf_counter() - t0))
    if args.json:
        args.json.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
