"""Where the ``imprecise`` thresholds come from: loud on fixed precision bugs, silent elsewhere.

``imprecise`` (``verdict.IMPRECISE_*``) flags a compiled output that passes ``same()`` but whose
RMSE against float64 is at least RATIO times eager's, on at least MIN_NUMEL values, and at least
MIN_EPS units of the dtype's eps relative to the output's RMS. This bench measures, for every
float output of

* the precision cases of the real-repro corpus (``bench/issues``, category ``precision`` and
  the LayerNorm mismatch), under ``--python`` (a release where they are buggy) and this Python
  (where they are fixed),
* the false-alarm and reordering corpora of the tests (``tests/data/false_alarms``,
  ``tests/data/reorder``): numerically sensitive programs that are not bugs,
* ``-n`` generated programs (``--generator``, default graph),

the least precise output's ratio and eps units (``evidence.precision_max``, or ``precision`` when
flagged), and how many of each group candidate thresholds would flag, per thousand programs.

    python bench/imprecise.py --python /path/to/venv-2.6/bin/python -n 150
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from torchsmith.check import check_program  # noqa: E402
from torchsmith.execute.worker import Worker  # noqa: E402
from torchsmith.generate.protocol import GenContext, get_generator  # noqa: E402
from torchsmith.options import CheckOptions  # noqa: E402
from torchsmith.program.load import load_program  # noqa: E402

RATIOS = (3.0, 5.0, 10.0, 20.0)
EPS_UNITS = (4.0, 16.0, 64.0)


def figures(result: Any) -> dict[str, float] | None:
    ev = result.evidence
    return ev.get("precision") or ev.get("precision_max")


def measure(worker: Worker, programs: list[Any], options: CheckOptions) -> list[dict[str, Any]]:
    rows = []
    for program in programs:
        r = check_program(program, options, worker)
        f = figures(r) or {}
        rows.append(
            {"program": program.name, "verdict": r.verdict.value,
             "ratio": f.get("ratio", 0.0), "eps_units": f.get("eps_units", 0.0),
             "numel": f.get("numel", 0)}
        )  # fmt: skip
        print(f"  {program.name:42s} {r.verdict.value:12s} ratio {rows[-1]['ratio']:9.3g}"
              f" eps {rows[-1]['eps_units']:9.3g} n {rows[-1]['numel']}", flush=True)  # fmt: skip
    return rows


def flagged(rows: list[dict[str, Any]], ratio: float, eps: float, numel: int = 256) -> int:
    return sum(
        r["verdict"] in ("pass", "imprecise")
        and r["ratio"] >= ratio and r["eps_units"] >= eps and r["numel"] >= numel
        for r in rows
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=None, help="A venv where the precision bugs are live.")
    ap.add_argument("-n", type=int, default=150, help="Generated programs.")
    ap.add_argument("--generator", default="graph")
    ap.add_argument("--seed", type=int, default=5000)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    options = CheckOptions(localize=False, timeout=600, memory_mb=12000)
    cases = json.loads((ROOT / "bench" / "issues" / "cases.json").read_text())
    precision = [
        load_program(ROOT / "bench" / "issues" / c["file"])
        for c in cases
        if c["category"] == "precision" or "143182" in c["file"]
    ]
    sensitive = [
        load_program(p)
        for folder in ("false_alarms", "reorder")
        for p in sorted((ROOT / "tests" / "data" / folder).glob("*.py"))
    ]
    gen = get_generator(args.generator)
    generated = [gen.generate(args.seed + i, GenContext()) for i in range(args.n)]
    groups: dict[str, list[dict[str, Any]]] = {}
    with Worker(memory_mb=options.memory_mb) as worker:
        print("precision cases, this torch (fixed):")
        groups["precision cases, fixed"] = measure(worker, precision, options)
        print("false-alarm and reordering corpora:")
        groups["sensitive corpora"] = measure(worker, sensitive, options)
        print(f"{args.n} generated programs ({args.generator}):")
        groups["generated"] = measure(worker, [p for p in generated if p is not None], options)
    if args.python:
        with Worker(memory_mb=options.memory_mb, python=args.python) as worker:
            print(f"precision cases under {args.python} (buggy):")
            groups["precision cases, buggy"] = measure(worker, precision, options)
    print("\nflagged per group (ratio >= R and eps units >= E, at least 256 values):")
    header = "".join(f"  R{r:g}/E{e:g}" for r in RATIOS for e in EPS_UNITS)
    print(f"{'group':28s}{'n':>5}{header}")
    for name, rows in groups.items():
        cells = "".join(f"{flagged(rows, r, e):>9}" for r in RATIOS for e in EPS_UNITS)
        print(f"{name:28s}{len(rows):>5}{cells}")
    gen_rows = groups["generated"]
    if gen_rows:
        from torchsmith.verdict import IMPRECISE_MIN_EPS, IMPRECISE_RATIO

        n = flagged(gen_rows, IMPRECISE_RATIO, IMPRECISE_MIN_EPS)
        print(f"\nchosen thresholds R{IMPRECISE_RATIO:g}/E{IMPRECISE_MIN_EPS:g}: generated"
              f" programs flagged {1000.0 * n / len(gen_rows):.1f} per thousand")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(groups, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
