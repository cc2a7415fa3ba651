"""The steering bench: does coverage-steered family weighting (``fuzz --steer``) raise the
yield curve of the default mix?

Runs two default-mix campaigns side by side, one job each, on one seed, both measuring
compiler line coverage of every 4th seed's program (``--coverage-every 4``, so both pay the
same extra compile); only the second steers the family weights by it (``--steer``). Each is a
``bench/long_campaign.py`` leg, so its ``timeline.jsonl`` holds the cause curve, RSS and disk.
Then, per 15 minutes of campaign time and side by side: programs, causes (after background
reduction and merging), compiler lines covered, and the family shares; at the end the
labels (new, known, lesser) and the ratio steered / unsteered.

    python bench/steer.py --out runs/steer --minutes 60 --seed 4242
    python bench/steer.py --analyze runs/steer

Not a test: two hour-long campaigns sharing the machine. One pair of runs is one sample of a
noisy process; say so with the figures. Keep ``--steer`` on only if it raises the curve.
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

from long_campaign import analyze as analyze_leg  # noqa: E402
from long_campaign import run_arms  # noqa: E402

from torchsmith.campaign.steer import read_curve  # noqa: E402
from torchsmith.campaign.store import Store  # noqa: E402
from torchsmith.campaign.summary import summarize  # noqa: E402

ARMS = {"plain": ("--coverage-every", "4"), "steered": ("--coverage-every", "4", "--steer")}


def lines_at(curve: list[dict[str, Any]], minute: float) -> int:
    """Compiler lines covered by ``minute`` of campaign time."""
    return max((r["total"] for r in curve if r["t"] <= minute * 60), default=0)


def arm_figures(folder: Path, bucket_min: float) -> dict[str, Any]:
    leg = analyze_leg(folder, bucket_min)
    curve = read_curve(folder)
    with Store(folder, readonly=True) as store:
        s = summarize(store)
    rows = [{**p, "lines": lines_at(curve, p["minute"])} for p in leg["yield_curve"]]
    return {
        "curve": rows,
        "programs": s["programs"],
        "causes": s["causes"],
        "labels": s["labels"],
        "families": {f["family"]: f["programs"] for f in s["families"]},
        "coverage": s.get("coverage"),
        "new": [
            b["readable"][:160] for b in s["bug_list"] if b["label"] == "new" and not b["same_as"]
        ],
    }


def analyze(out: Path, bucket_min: float = 15.0) -> dict[str, Any]:
    arms = {name: arm_figures(out / name, bucket_min) for name in ARMS}
    plain, steered = arms["plain"], arms["steered"]
    ratio = {
        k: round(steered[k] / plain[k], 2) if plain[k] else None for k in ("programs", "causes")
    }
    p_lines = (plain["coverage"] or {}).get("lines") or 0
    s_lines = (steered["coverage"] or {}).get("lines") or 0
    ratio["lines"] = round(s_lines / p_lines, 3) if p_lines else None
    return {"arms": arms, "steered_over_plain": ratio}


def print_table(rep: dict[str, Any]) -> None:
    plain, steered = rep["arms"]["plain"]["curve"], rep["arms"]["steered"]["curve"]
    print(f"{'minute':>6} | {'programs':>17} | {'causes':>13} | {'compiler lines':>17}")
    print(
        f"{'':>6} | {'plain':>8} {'steered':>8} | {'plain':>6} {'steer':>6} | {'plain':>8} {'steered':>8}"
    )
    for a, b in zip(plain, steered):
        print(
            f"{a['minute']:>6} | {a['programs']:>8} {b['programs']:>8} | {a['causes']:>6}"
            f" {b['causes']:>6} | {a['lines']:>8} {b['lines']:>8}"
        )
    for name, arm in rep["arms"].items():
        print(f"{name}: labels {arm['labels']}, families {arm['families']}")
        for line in arm["new"]:
            print(f"  new: {line}")
    print("steered / plain:", rep["steered_over_plain"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="Folder for the two campaigns (plain/, steered/).")
    ap.add_argument("--minutes", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--python", default=sys.executable, help="Interpreter of the torch to fuzz.")
    ap.add_argument("--analyze", type=Path, help="Print the figures of this folder; run nothing.")
    ap.add_argument("--json", action="store_true", help="Print the figures as JSON too.")
    args = ap.parse_args(argv)
    if args.analyze is None and args.out is None:
        ap.error("give --out (run both arms) or --analyze DIR")
    out = args.analyze or args.out
    if args.analyze is None:
        run_arms(out, args.minutes, args.seed, args.python, ARMS)
    rep = analyze(out)
    print_table(rep)
    if args.json:
        print(json.dumps(rep, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
