"""The surfaces bench: the bug surfaces few fuzzers cover, each fuzzed for a while, side by side.

Each surface is one ``torchsmith fuzz`` campaign (background reduction on, so findings become
labelled causes), run for ``--minutes`` on the same seed, then analyzed like
``bench/triage.py`` does:

* ``default``: the default mix on the default compile path (the baseline to compare with);
* ``config``: the default mix under sampled non-default settings (``--config-space default``);
* ``export``: the ``export`` family (torch.export, decompositions, AOTInductor);
* ``train``: the ``train`` family (compiled training steps, compiled autograd on and off);
* ``shapes``: the graph and opinfo families with ``shapes=boundary`` only;
* ``hop``: the ``hop`` family (higher-order ops and function transforms: cond, while_loop, scan,
  associative_scan, map, nested compile regions, flex attention, vmap, grad, checkpoint);
* ``config-hop``: the hop family under sampled non-default settings;
* ``train-hop``: training steps whose model's hidden layer goes through a higher-order op;
* ``export-hop``: hop programs through export + AOTInductor or the C++ wrapper.

Per surface: programs, validity, findings, signatures, causes, the labels (``new``, ``known``,
``lesser``) and new causes per CPU-hour (one job: wall time is CPU time). Tameness and false
alarms are reported side by side: a surface with no finding is a result too, and every new
cause must still be audited by hand (reduced repro in ``bench/found/``, an fp64 check, a
public-issue search) before it is called a bug.

    python bench/surfaces.py --minutes 60 --out runs/surfaces-213
    python bench/surfaces.py --minutes 60 --python /work/venv26/bin/python --out runs/surfaces-26
    python bench/surfaces.py --analyze runs/surfaces-213       # the figures again

Not a test: nine hour-long campaigns (pick some with ``--surfaces``).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "src"))

from triage import analyze  # noqa: E402

#: surface -> the fuzz arguments that select it.
SURFACES: dict[str, list[str]] = {
    "default": [],
    "config": ["--config-space", "default"],
    "export": ["--generator", "export"],
    "train": ["--generator", "train"],
    "shapes": [
        "--gen-option",
        "families=graph=1,opinfo=1",
        "--gen-option",
        'graph={"shapes": "boundary"}',
        "--gen-option",
        'opinfo={"shapes": "boundary"}',
    ],
    "hop": ["--generator", "hop"],
    # hop programs under sampled non-default settings (bisected to the settings they need)
    "config-hop": ["--generator", "hop", "--config-space", "default"],
    # training steps whose model routes its hidden layer through a higher-order op
    "train-hop": ["--generator", "train", "--gen-option", "models=hop"],
    # hop programs through export + AOTInductor, or torch.compile with the C++ wrapper
    "export-hop": ["--generator", "export", "--gen-option", "bases=hop"],
}


def run_surface(name: str, out: Path, minutes: float, seed: int, python: str) -> None:
    cmd = [sys.executable, "-m", "torchsmith", "fuzz", "--time", f"{minutes}m", "--jobs", "1"]
    cmd += ["--seed", str(seed), "--out", str(out), "--python", python]
    cmd += ["--progress-interval", "300", *SURFACES[name]]
    print(" ".join(cmd), flush=True)
    subprocess.run(cmd, check=False)


def figures(folder: Path, python: str) -> dict[str, Any]:
    rep = analyze(folder, python, 300.0)
    with open(folder / "summary.json", "w") as f:
        json.dump(rep, f, indent=1)
    from torchsmith.campaign.store import Store
    from torchsmith.campaign.summary import summarize

    with Store(folder, readonly=True) as store:
        s = summarize(store)
    hours = max(s["elapsed_s"], 1.0) / 3600
    return {
        "programs": s["programs"],
        "valid_pct": s["valid_pct"],
        "findings": s["findings"],
        "signatures": rep["signatures"],
        "causes": rep["causes"],
        "labels": rep["labels"],
        "new_per_cpu_hour": round(rep["labels"].get("new", 0) / hours, 2),
        "new": [r["readable"] for r in rep["rows"] if r["label"] == "new"],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="Folder for the campaigns (one per surface).")
    ap.add_argument("--analyze", type=Path, help="Only analyze the campaigns in this folder.")
    ap.add_argument("--minutes", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--surfaces", nargs="+", default=list(SURFACES), choices=list(SURFACES))
    args = ap.parse_args(argv)
    root = args.analyze or args.out
    if root is None:
        ap.error("--out DIR or --analyze DIR")
    if args.analyze is not None and not args.analyze.is_dir():
        print(f"surfaces: {args.analyze}: no such folder", file=sys.stderr)
        return 2
    rows = {}
    for name in args.surfaces:
        folder = root / name
        if args.analyze is None:
            run_surface(name, folder, args.minutes, args.seed, args.python)
        if (folder / "campaign.db").exists():
            rows[name] = figures(folder, args.python)
    head = "surface | programs | valid % | findings | signatures | causes | new | known | lesser"
    print(f"\n| {head} | new / CPU-hour |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, r in rows.items():
        lab = r["labels"]
        print(
            f"| {name} | {r['programs']} | {r['valid_pct']} | {r['findings']} | {r['signatures']}"
            f" | {r['causes']} | {lab.get('new', 0)} | {lab.get('known', 0)}"
            f" | {lab.get('lesser', 0)} | {r['new_per_cpu_hour']} |"
        )
    for name, r in rows.items():
        for readable in r["new"]:
            print(f"new on {name}: {readable}")
    (root / "surfaces.json").write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
