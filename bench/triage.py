"""The triage bench: from a campaign's findings to labelled causes, with no person in between.

Runs a default-mix campaign (``torchsmith fuzz``, which reduces every new signature in the
background and merges bugs whose reduced forms sign alike), or reads one (``--campaign DIR``),
and reports, per campaign:

* signatures: the raw signatures recorded, and the share whose bug has a reduced finding
  (goal >= 95 %);
* statements left: the median number of statements in the reduced programs' tested code
  (``forward`` of the model class, or the function; nested statements count; goal <= 3);
* standalone: the share of reduced findings whose ``repro.py`` run alone (a fresh interpreter,
  ``--python``) exits 1, i.e. shows the failure (goal 100 %);
* reduce seconds: the median of the reductions' own timings (goal <= 60);
* causes after merging against signatures before;
* the labels (``new``, ``known #N``, ``lesser``), each cause listed with its label.

    python bench/triage.py --time 20m --seed 1000 --out runs/triage-213
    python bench/triage.py --time 25m --seed 0 --python /work/venv26/bin/python --out runs/triage-26
    python bench/triage.py --campaign runs/triage-213        # analyze only

Not a test: a run takes the campaign's time plus the reductions queued at its end.
"""

from __future__ import annotations

import argparse
import ast
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from torchsmith.campaign.store import Store  # noqa: E402
from torchsmith.campaign.summary import summarize  # noqa: E402
from torchsmith.finding import FINDINGS, read_finding  # noqa: E402


def tested_statements(source: str, model: str) -> int | None:
    """Statements in the tested code: ``forward`` of class ``model``, or function ``model``."""
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == model:
            fwd = [n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "forward"]
            if fwd:
                return sum(isinstance(n, ast.stmt) for n in ast.walk(fwd[0])) - 1
        if isinstance(node, ast.FunctionDef) and node.name == model:
            return sum(isinstance(n, ast.stmt) for n in ast.walk(node)) - 1
    return None


def reproduces(folder: Path, python: str, timeout: float, verdict: str = "") -> bool:
    """Whether the finding's ``repro.py`` alone shows the failure: exit 1 (the harness's
    verdict), or for a finding whose compiled run died, death by a signal; for a hang, no end
    within ``timeout``."""
    try:
        proc = subprocess.run(
            [python, "repro.py"], cwd=folder, capture_output=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired:
        return verdict == "timeout"
    if verdict in ("died", "segfault"):
        return proc.returncode == 1 or proc.returncode < 0
    return proc.returncode == 1


def analyze(folder: Path, python: str, timeout: float) -> dict[str, Any]:
    """The triage figures of the campaign in ``folder`` (see the module docstring)."""
    with Store(folder, readonly=True) as store:
        summary = summarize(store)
    bugs = summary["bug_list"]
    signatures = sorted({s for b in bugs for s in b["raw_signatures"]})
    reduced_sigs = {s for b in bugs if b.get("reduced_finding") for s in b["raw_signatures"]}
    rows = []
    for b in bugs:
        row: dict[str, Any] = {
            "signature": b["signature"],
            "readable": b["readable"],
            "label": b["label"],
            "known_as": b.get("known_as"),
            "findings": b["count"],
            "raw_signatures": len(b["raw_signatures"]),
            "reduced": b.get("reduced_finding"),
        }
        if b.get("reduced_finding"):
            f = read_finding(folder / FINDINGS / b["reduced_finding"])
            row["statements"] = tested_statements(f.program.source, f.program.model)
            row["reduce_s"] = (f.info.reduction or {}).get("seconds")
            row["standalone"] = reproduces(f.folder, python, timeout, f.result.verdict.value)
        rows.append(row)
    red = [r for r in rows if r["reduced"]]

    def median(key: str) -> float | None:
        vals = [r[key] for r in red if r.get(key) is not None]
        return statistics.median(vals) if vals else None

    return {
        "campaign": str(folder),
        "programs": summary["programs"],
        "findings": summary["findings"],
        "signatures": len(signatures),
        "signatures_reduced_pct": round(100.0 * len(reduced_sigs) / len(signatures), 1)
        if signatures
        else None,
        "median_statements": median("statements"),
        "standalone_pct": round(100.0 * sum(bool(r["standalone"]) for r in red) / len(red), 1)
        if red
        else None,
        "median_reduce_s": median("reduce_s"),
        "causes": len(bugs),
        "labels": summary["labels"],
        "rows": rows,
    }


def print_report(rep: dict[str, Any]) -> None:
    print(f"campaign {rep['campaign']}: {rep['programs']} programs, {rep['findings']} findings")
    print(f"  signatures {rep['signatures']}, reduced {rep['signatures_reduced_pct']}% (>= 95)")
    print(f"  median statements left {rep['median_statements']} (<= 3)")
    print(f"  reduced repros reproducing standalone {rep['standalone_pct']}% (100)")
    print(f"  median reduce seconds {rep['median_reduce_s']} (<= 60)")
    print(f"  causes {rep['causes']} from {rep['signatures']} signatures; labels {rep['labels']}")
    for r in rep["rows"]:
        known = f" {r['known_as']}" if r.get("known_as") else ""
        extra = (
            f"statements {r.get('statements')}, {r.get('reduce_s')} s, standalone"
            f" {r.get('standalone')}"
            if r["reduced"]
            else "not reduced"
        )
        print(f"  [{r['label']}{known}] {r['readable'][:100]}  ({r['findings']} findings; {extra})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--campaign", type=Path, help="Analyze this campaign folder; run none.")
    ap.add_argument("--out", type=Path, help="Folder of the campaign to run.")
    ap.add_argument("--time", default="20m")
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--python", default=sys.executable, help="Interpreter of the torch to fuzz.")
    ap.add_argument("--reduce-time", type=float, default=60.0)
    ap.add_argument("--repro-timeout", type=float, default=300.0)
    ap.add_argument("--json", type=Path, help="Write the figures here.")
    args = ap.parse_args(argv)
    folder = args.campaign
    if folder is None:
        if args.out is None:
            ap.error("--out DIR (a new campaign) or --campaign DIR (analyze only)")
        cmd = [sys.executable, "-m", "torchsmith", "fuzz", "--time", args.time, "--jobs", "1"]
        cmd += ["--seed", str(args.seed), "--out", str(args.out), "--progress-interval", "60"]
        cmd += ["--reduce-time", str(args.reduce_time), "--python", args.python]
        print(" ".join(cmd), flush=True)
        subprocess.run(cmd, check=False)
        folder = args.out
    if not (folder / "campaign.db").exists():
        print(f"triage: {folder}: no campaign.db (not a campaign folder)", file=sys.stderr)
        return 2
    rep = analyze(folder, args.python, args.repro_timeout)
    print_report(rep)
    if args.json:
        args.json.write_text(json.dumps(rep, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
