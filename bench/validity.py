"""Validity of generated programs: run N of them in eager (crash-safely, in child processes).

Reports the valid rate (goal >= 99.5 %), the op histogram (every registered op should appear),
and, for information, the share of programs that compile with Inductor (``--compile K``: the
first K programs) and the verdicts of the ``check`` oracle (``--check K``).

    python bench/validity.py -n 1000
    python bench/validity.py -n 200 --compile 50 --check 20 --values edge
    python bench/validity.py -n 100 --shapes boundary --compile 100
"""

from __future__ import annotations

import argparse
import collections
import json
import shlex
import statistics
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from rich.console import Console  # noqa: E402
from rich.table import Table  # noqa: E402

from torchsmith.generate.graph import GenOptions, generate, op_families, op_names  # noqa: E402
from torchsmith.generate.validate import validate_seeds  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    p.add_argument("-n", type=int, default=1000, help="number of programs (default 1000)")
    p.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    p.add_argument("--jobs", type=int, default=2, help="child processes in parallel (default 2)")
    p.add_argument("--max-nodes", type=int, default=GenOptions.max_nodes)
    p.add_argument(
        "--ops", default=None, help="op filter (names, globs or regexes, comma-separated)"
    )
    p.add_argument("--dtypes", default=None, help="comma-separated dtypes for inputs")
    p.add_argument("--edge-values", action="store_true", help="same as --values edge")
    p.add_argument(
        "--values",
        default=GenOptions.values,
        help="mixed (default: 25%% of seeds edge values), edge (every seed), plain or wild",
    )
    p.add_argument(
        "--shapes",
        default=GenOptions.shapes,
        help="mixed (default: 20%% of seeds boundary sizes), boundary (every seed) or random",
    )
    p.add_argument(
        "--compile",
        type=int,
        default=0,
        metavar="K",
        help="also torch.compile the first K programs",
    )
    p.add_argument(
        "--check",
        type=int,
        default=0,
        metavar="K",
        help="run torchsmith.check on the first K programs",
    )
    p.add_argument("--timeout", type=int, default=120, help="seconds per program (default 120)")
    p.add_argument("--json", default=None, help="write every per-program record to this file")
    return p.parse_args(argv)


def run_check(
    seeds: list[int], opts: GenOptions, timeout: int
) -> tuple[collections.Counter, list[str]]:
    """Verdicts of the differential oracle (optional: skipped when it is not available), and
    the seeds whose verdict is not ``pass``."""
    verdicts: collections.Counter = collections.Counter()
    odd: list[str] = []
    try:
        from torchsmith import check
    except ImportError as e:  # the oracle is developed separately
        verdicts[f"unavailable ({e})"] = len(seeds)
        return verdicts, odd
    for s in seeds:
        try:
            v = str(check(generate(s, opts), timeout=timeout).verdict.value)
        except Exception as e:
            v = f"check raised {type(e).__name__}"
        verdicts[v] += 1
        if v != "pass":
            odd.append(f"gen_{s}: {v}")
    return verdicts, odd


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    kw = {"max_nodes": args.max_nodes, "ops": args.ops, "shapes": args.shapes}
    kw["values"] = "edge" if args.edge_values else args.values
    if args.dtypes:
        kw["dtypes"] = tuple(d.strip() for d in args.dtypes.split(",") if d.strip())
    opts = GenOptions(**kw)
    seeds = list(range(args.seed, args.seed + args.n))
    compile_seeds = set(seeds[: args.compile])
    jobs = max(1, args.jobs)
    parts = [seeds[i::jobs] for i in range(jobs)]
    t0 = time.perf_counter()
    with ThreadPoolExecutor(jobs) as pool:
        chunks = list(
            pool.map(
                lambda part: validate_seeds(part, opts, compile_seeds, args.timeout, jobs), parts
            )
        )
    records = sorted((r for c in chunks for r in c), key=lambda r: r["seed"])
    wall = time.perf_counter() - t0

    status = collections.Counter(r["status"] for r in records)
    hist: collections.Counter = collections.Counter()
    for r in records:
        hist.update(r.get("ops", []))
    names = op_names()
    never = [n for n in names if hist[n] == 0 and (not args.ops or n in _filtered(names, args.ops))]
    valid = status["ok"]
    con = Console(width=110)

    t = Table(title=f"torchsmith generator validity ({len(records)} programs)")
    t.add_column("measure")
    t.add_column("value", justify="right")
    t.add_row(
        "valid in eager (ran, finite outputs)",
        f"{valid} / {len(records)} = {100 * valid / len(records):.2f} %",
    )
    for k in ("error", "nonfinite", "crash", "timeout", "gen_error", "tool_error"):
        t.add_row(f"  {k}", str(status.get(k, 0)))
    t.add_row("ops registered", str(len(names)))
    t.add_row("ops used at least once", str(len(names) - len(never)))
    t.add_row("ops never used", ", ".join(never) if never else "none")
    lines = [r["lines"] for r in records if "lines" in r]
    if lines:
        t.add_row(
            "forward statements per program (mean / max)",
            f"{statistics.mean(lines):.1f} / {max(lines)}",
        )
    ops_per = [len(r.get("ops", [])) for r in records]
    t.add_row("distinct ops per program (mean)", f"{statistics.mean(ops_per):.1f}")
    gen = [r["gen_s"] for r in records if "gen_s" in r]
    run = [r["run_s"] for r in records if "run_s" in r]
    if gen:
        t.add_row(
            "generate / eager run per program (median ms)",
            f"{1e3 * statistics.median(gen):.1f} / {1e3 * statistics.median(run or [0]):.1f}",
        )
    comp = [r for r in records if "compile" in r]
    if comp:
        ok = sum(r["compile"] == "ok" for r in comp)
        t.add_row(
            "compile with Inductor and run (first K)",
            f"{ok} / {len(comp)} = {100 * ok / len(comp):.1f} %",
        )
    t.add_row("wall time", f"{wall:.1f} s ({jobs} jobs)")
    con.print(t)

    for label, rows in (
        ("errors", [r for r in records if r["status"] not in ("ok",)]),
        ("compile failures", [r for r in comp if r["compile"] != "ok"]),
    ):
        if rows:
            con.print(f"[bold]{label}[/bold] (first 15):")
            for r in rows[:15]:
                con.print(
                    f"  gen_{r['seed']}: {r['status'] if label == 'errors' else ''} "
                    f"{r.get('error') or r.get('compile_error', '')}",
                    markup=False,
                )

    if args.check:
        verdicts, odd = run_check(seeds[: args.check], opts, args.timeout)
        con.print(
            f"check oracle verdicts on the first {args.check}: "
            + ", ".join(f"{k}={v}" for k, v in verdicts.most_common())
        )
        for line in odd[:20]:
            con.print(f"  {line}", markup=False)

    con.print("[bold]op histogram[/bold] (programs using each op, by family):")
    for fam, members in op_families().items():
        cells = "  ".join(f"{n}:{hist[n]}" for n in members)
        text = textwrap.fill(
            cells, width=106, initial_indent=f"  {fam}: ", subsequent_indent="      "
        )
        con.print(text, markup=False, highlight=False)

    if args.json:
        Path(args.json).write_text("\n".join(json.dumps(r) for r in records) + "\n")
    cmd = "python bench/validity.py " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:])
    )
    con.print(f"reproduce: {cmd.strip()}", markup=False)
    return 0 if valid == len(records) else 1


def _filtered(names: list[str], pattern: str) -> set[str]:
    from torchsmith.generate.graph.options import compile_filter

    m = compile_filter(pattern)
    return {n for n in names if m(n)}


if __name__ == "__main__":
    sys.exit(main())
