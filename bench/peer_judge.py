"""NNSmith's bug reports, judged twice: by NNSmith's own replay and by ``torchsmith check``.

For each NNSmith bug folder (``bug-*`` under each ``--reports`` folder, e.g. the
``nnsmith-root`` that ``bench/peer.py --keep DIR`` keeps):

1. NNSmith's replay: ``python -m nnsmith.cli.model_exec model.type=torch backend.type=pt2
   model.path=FOLDER/model.pth`` in NNSmith's venv, which recompiles the model and compares it
   with the folder's oracle by NNSmith's rule (``allclose`` against eager): does the report
   still stand?
2. torchsmith's verdict: the same model (NNSmith's GraphIR and weights, ``torch.fx``-traced as
   NNSmith's pt2 backend traces it) and the oracle's inputs, written as a torchsmith program
   and checked by a worker under NNSmith's Python (the same torch): the fp64 rule, the
   sensitivity probe, everything a campaign does (localization off).

A report NNSmith's replay still flags and ``check`` passes is a false alarm by the maintainers'
standard (compiled is no further from float64 than eager is); one both flag is a candidate bug.

    python bench/peer_judge.py --nnsmith-python /work/nnsmith-venv/bin/python \\
        --reports KEEP/nnsmith-root [...] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from torchsmith.check import check_program  # noqa: E402
from torchsmith.execute.worker import Worker  # noqa: E402
from torchsmith.options import CheckOptions  # noqa: E402
from torchsmith.program.load import load_program  # noqa: E402

PROGRAM = '''"""NNSmith bug folder {folder}: its model and its oracle's inputs."""

import torch
from nnsmith.materialize import Oracle
from nnsmith.materialize.torch import TorchModelCPU
from nnsmith.materialize.torch.symbolnet import FxTracing

FOLDER = {folder!r}


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        net = TorchModelCPU.load(FOLDER + "/model.pth").torch_model.eval()
        with torch.no_grad(), FxTracing():  # as NNSmith's pt2 backend traces it
            self.net = torch.fx.symbolic_trace(net)

    def forward(self, *args):
        return tuple(self.net(*args))


def get_inputs():
    return [torch.from_numpy(v) for v in Oracle.load(FOLDER + "/oracle.pkl").input.values()]
'''


def nnsmith_replay(python: str, folder: Path, work: Path) -> str:
    """``FAIL`` when NNSmith's own replay still reports the bug, ``PASS`` when not."""
    hydra = work / f"hydra-{folder.name}"
    cmd = [python, "-m", "nnsmith.cli.model_exec", "model.type=torch", "backend.type=pt2",
           "backend.target=cpu", f"model.path={folder / 'model.pth'}",
           f"hydra.run.dir={hydra}"]  # fmt: skip
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=work, timeout=600)
    except subprocess.TimeoutExpired:  # a replay that hangs is recorded, the others still run
        return "timeout (600 s)"
    log = "".join(p.read_text(errors="replace") for p in hydra.glob("*.log"))
    if "[FAIL]" in log:
        return "FAIL"
    return "PASS" if proc.returncode == 0 else f"error (exit {proc.returncode})"


def report_summary(folder: Path) -> str:
    """How many elements NNSmith's report found different, and by how much at most."""
    text = (folder / "err.log").read_text(errors="replace") if (folder / "err.log").exists() else ""
    count = re.search(r"Mismatched elements: (\d+ / \d+)", text)
    diff = re.search(r"Max absolute difference[^:]*: (\S+)", text)
    return f"{count.group(1) if count else '?'}, max |diff| {diff.group(1) if diff else '?'}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nnsmith-python", required=True, help="Python of NNSmith's own venv.")
    ap.add_argument("--reports", type=Path, nargs="+", required=True,
                    help="Folders holding NNSmith's bug-* folders.")  # fmt: skip
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if not Path(args.nnsmith_python).is_file():
        ap.error(f"--nnsmith-python {args.nnsmith_python}: no such interpreter")
    folders = sorted(f for root in args.reports for f in root.glob("bug-*") if f.is_dir())
    if not folders:
        ap.error("no bug-* folders under --reports")
    rows: list[dict[str, Any]] = []
    opts = CheckOptions(timeout=args.timeout, localize=False)
    with (
        tempfile.TemporaryDirectory(prefix="torchsmith-judge-") as tmp,
        Worker(python=args.nnsmith_python) as worker,
    ):
        work = Path(tmp)
        for i, folder in enumerate(folders):
            path = work / f"nnsmith_report_{i}.py"
            path.write_text(PROGRAM.format(folder=str(folder.resolve())))
            replay = nnsmith_replay(args.nnsmith_python, folder.resolve(), work)
            try:
                r = check_program(load_program(path), opts, worker)
                verdict, reason, bug = r.verdict.value, r.reason, r.is_bug
            except Exception as e:  # a load or tool failure: recorded, never a verdict
                verdict, reason, bug = "error", f"{type(e).__name__}: {e}", False
            rows.append({"folder": str(folder), "report": report_summary(folder),
                         "nnsmith_replay": replay, "torchsmith": verdict, "bug": bug,
                         "reason": reason[:300]})  # fmt: skip
            print(f"  {folder.parent.parent.name}/{folder.name}: NNSmith replay {replay},"
                  f" torchsmith {verdict}", file=sys.stderr, flush=True)  # fmt: skip
    print(f"{'report':<40}{'recorded':<34}{'NNSmith replay':<16}torchsmith")
    for i, r in enumerate(rows):
        print(f"{i:<3}{Path(r['folder']).name[-36:]:<37}{r['report']:<34}{r['nnsmith_replay']:<16}"
              f"{r['torchsmith']}")  # fmt: skip
    for i, r in enumerate(rows):
        if r["torchsmith"] != "pass":
            print(f"  {i}: {r['folder']}\n     {r['reason']}")
    standing = [r for r in rows if r["nnsmith_replay"] == "FAIL"]
    bugs = [r for r in standing if r["bug"]]
    passed = [r for r in standing if r["torchsmith"] == "pass"]
    print(f"\n{len(rows)} reports; NNSmith's replay still flags {len(standing)}; torchsmith"
          f" calls {len(bugs)} of those a compiler bug, passes {len(passed)} (false alarms by"
          f" the fp64 rule), and {len(standing) - len(bugs) - len(passed)} other (unstable,"
          f" error)")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
