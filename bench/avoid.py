"""The avoidance bench: does checking fewer programs that repeat a cause already found
(``fuzz --avoid-repeats``) raise a surface's yield curve?

Runs two campaigns of one surface (``bench/surfaces.py``'s names) side by side, one job each, on
one seed; only the second avoids. Each is a ``bench/long_campaign.py`` leg (its
``timeline.jsonl`` holds the cause curve). Then, per 15 minutes and side by side: programs,
programs avoided, causes (after background reduction and merging); at the end the labels
(new, known, lesser), the findings that repeated a signature, and avoided / plain.

    python bench/avoid.py --surface train-hop --out runs/avoid-trainhop --minutes 40 --seed 15000
    python bench/avoid.py --analyze runs/avoid-trainhop

Not a test: two campaigns sharing the machine, one sample of a noisy process; say so with the
figures. Keep avoidance off by default unless it raises the curve.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

from long_campaign import run_arms  # noqa: E402
from steer import arm_figures  # noqa: E402
from surfaces import SURFACES  # noqa: E402

from torchsmith.campaign.store import Store  # noqa: E402

ARMS = {"plain": (), "avoiding": ("--avoid-repeats",)}


def repeats(folder: Path) -> dict[str, int]:
    """Checked programs, avoided ones, findings, and findings whose signature an earlier
    program of the campaign already had."""
    with Store(folder, readonly=True) as store:
        rows = sorted(store.rows(), key=lambda r: r["recorded"])
    seen: set[str] = set()
    out = {"checked": 0, "avoided": 0, "findings": 0, "repeated": 0}
    for r in rows:
        out["checked"] += r["status"] == "checked"
        out["avoided"] += r["status"] == "avoided"
        if r["category"] == "bug" and r["signature"]:
            out["findings"] += 1
            out["repeated"] += r["signature"] in seen
            seen.add(r["signature"])
    return out


def avoided_at(folder: Path, minute: float) -> int:
    with Store(folder, readonly=True) as store:
        t0 = min((r["recorded"] for r in store.rows()), default=0.0)
        return sum(
            1
            for r in store.rows()
            if r["status"] == "avoided" and r["recorded"] - t0 <= minute * 60
        )


def analyze(out: Path, bucket_min: float = 15.0) -> dict[str, Any]:
    arms = {}
    for name in ARMS:
        fig = arm_figures(out / name, bucket_min)
        fig["curve"] = [{**p, "avoided": avoided_at(out / name, p["minute"])} for p in fig["curve"]]
        fig["repeats"] = repeats(out / name)
        arms[name] = fig
    plain, avoiding = arms["plain"], arms["avoiding"]
    ratio = {
        k: round(avoiding[k] / plain[k], 2) if plain[k] else None for k in ("programs", "causes")
    }
    return {"arms": arms, "avoiding_over_plain": ratio}


def print_table(rep: dict[str, Any]) -> None:
    plain, avoiding = rep["arms"]["plain"]["curve"], rep["arms"]["avoiding"]["curve"]
    print(f"{'minute':>6} | {'programs':>17} | {'avoided':>7} | {'causes':>13}")
    print(f"{'':>6} | {'plain':>8} {'avoiding':>8} | {'':>7} | {'plain':>6} {'avoid':>6}")
    for a, b in zip(plain, avoiding):
        print(
            f"{a['minute']:>6} | {a['programs']:>8} {b['programs']:>8} | {b['avoided']:>7} |"
            f" {a['causes']:>6} {b['causes']:>6}"
        )
    for name, arm in rep["arms"].items():
        print(f"{name}: labels {arm['labels']}, {arm['repeats']}")
        for line in arm["new"]:
            print(f"  new: {line}")
    print("avoiding / plain:", rep["avoiding_over_plain"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--surface", default="train-hop", choices=sorted(SURFACES))
    ap.add_argument("--out", type=Path, help="Folder for the two campaigns (plain/, avoiding/).")
    ap.add_argument("--minutes", type=float, default=40.0)
    ap.add_argument("--seed", type=int, default=15000)
    ap.add_argument("--python", default=sys.executable, help="Interpreter of the torch to fuzz.")
    ap.add_argument("--analyze", type=Path, help="Print the figures of this folder; run nothing.")
    ap.add_argument("--json", action="store_true", help="Print the figures as JSON too.")
    args = ap.parse_args(argv)
    if args.analyze is None and args.out is None:
        ap.error("give --out (run both arms) or --analyze DIR")
    out = args.analyze or args.out
    if args.analyze is None:
        surface = tuple(SURFACES[args.surface])
        arms = {name: (*surface, *extra) for name, extra in ARMS.items()}
        run_arms(out, args.minutes, args.seed, args.python, arms)
    rep = analyze(out)
    print_table(rep)
    if args.json:
        print(json.dumps(rep, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
