"""Bugs per CPU-hour, packed against unpacked, on the same programs.

Runs two campaigns over the same seeds (``--count``), one after the other, each with its own
empty Inductor cache: ``--pack 1`` and ``--pack K``. The generator is the family mix with its
adaptive weights off (``adaptive=False``), so seed *i* is the same program on both sides: the
two campaigns differ only in how the programs are checked, and any difference in what they
find is packing's doing (a bug that only shows packed, or one a pack hides).

Printed per side: programs, wall seconds and CPU-hours (wall x jobs, start-up included),
distinct bugs (compiler-bug signatures), bugs per CPU-hour, and which
signatures one side found and the other did not; then the seeds whose verdicts differ.

    python bench/pack_bugs.py --python /work/venv26/bin/python --count 150 [--pack 8]
        [--jobs 1] [--seed 0] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from torchsmith.campaign.config import CampaignConfig  # noqa: E402
from torchsmith.campaign.loop import Campaign  # noqa: E402
from torchsmith.campaign.store import Store  # noqa: E402


def run(pack: int, args: argparse.Namespace, work: Path) -> dict[str, Any]:
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(work / f"cache-p{pack}")
    cfg = CampaignConfig(
        out=work / f"p{pack}", seed=args.seed, count=args.count, jobs=args.jobs, pack=pack,
        generator="mix", gen_options={"adaptive": False}, python=args.python,
    )  # fmt: skip
    t0 = time.perf_counter()
    summary = Campaign(cfg).run()
    wall = time.perf_counter() - t0
    with Store(cfg.out, readonly=True) as store:
        rows = store.rows()
    bugs: dict[str, str] = {}
    for r in rows:
        if r["finding"] and r["category"] == "bug":
            bugs.setdefault(r["signature"], r["readable"] or r["signature"])
    return {
        "programs": len(rows), "wall_s": wall, "cpu_h": wall * args.jobs / 3600,
        "bugs": bugs, "state": summary.get("state"),
        "verdicts": {r["seed"]: r["verdict"] or r["status"] for r in rows},
        "families": {r["seed"]: r["generator"] for r in rows},
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=None, help="Interpreter of the torch to hunt in.")
    ap.add_argument("--count", type=int, default=150)
    ap.add_argument("--pack", type=int, default=8)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if args.python and not Path(args.python).is_file():
        ap.error(f"--python {args.python}: no such interpreter")
    sides: dict[int, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="torchsmith-packbugs-") as tmp:
        for k in (1, args.pack):
            print(f"--pack {k}: {args.count} programs ...", file=sys.stderr, flush=True)
            sides[k] = run(k, args, Path(tmp))
    one, packed = sides[1], sides[args.pack]
    print(f"{'side':<12}{'programs':>9}{'wall s':>9}{'CPU-h':>8}{'bugs':>6}{'bugs/CPU-h':>12}")
    for k, s in sides.items():
        rate = len(s["bugs"]) / s["cpu_h"] if s["cpu_h"] else 0.0
        s["bugs_per_cpu_h"] = rate
        print(f"{'--pack ' + str(k):<12}{s['programs']:>9}{s['wall_s']:>9.0f}{s['cpu_h']:>8.3f}"
              f"{len(s['bugs']):>6}{rate:>12.1f}")  # fmt: skip
    ratio = packed["bugs_per_cpu_h"] / one["bugs_per_cpu_h"] if one["bugs_per_cpu_h"] else None
    print(f"packed / unpacked bugs per CPU-hour: {ratio:.2f}x" if ratio else "no bugs unpacked")
    print(f"programs per minute: unpacked {one['programs'] / one['wall_s'] * 60:.1f}, packed"
          f" {packed['programs'] / packed['wall_s'] * 60:.1f}")  # fmt: skip
    for name, a, b in (("only unpacked", one, packed), ("only packed", packed, one)):
        only = sorted(set(a["bugs"]) - set(b["bugs"]))
        print(f"{name}: {len(only)}" + "".join(f"\n  {a['bugs'][s][:150]}" for s in only))
    differ = [s for s in one["verdicts"] if one["verdicts"][s] != packed["verdicts"].get(s)]
    print(f"seeds with another verdict packed: {len(differ)}/{len(one['verdicts'])}"
          + "".join(f"\n  {s} ({one['families'][s]}): {one['verdicts'][s]} -> "
                    f"{packed['verdicts'].get(s)}" for s in differ))  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({str(k): v for k, v in sides.items()}, indent=1,
                                        default=str))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
