"""``torchsmith regress`` with two real venvs: this interpreter's torch and another CPU build
(``TORCHSMITH_OTHER_PYTHON``, default ``/work/venv26/bin/python``, torch 2.6.0 here).

Two findings: the planted Inductor fault on ``examples/linear_relu.py`` (a mismatch on every
torch: "still live") and PyTorch issue 137807 from the bench corpus (``aot_eager`` rejects
``native_batch_norm``'s out= variant: a crash on 2.6.0, fixed by 2.13.0: "fixed between").
Skipped, saying so, when the other venv is missing or has the same torch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from torchsmith import dedup
from torchsmith.check import check_program
from torchsmith.cli import main
from torchsmith.execute.worker import Worker
from torchsmith.finding import read_finding, versions, write_finding
from torchsmith.options import CheckOptions
from torchsmith.program.load import load_program
from torchsmith.regress import REGRESS_JSON, version_key
from torchsmith.report.markdown import render

ROOT = Path(__file__).resolve().parents[2]
OTHER = os.environ.get("TORCHSMITH_OTHER_PYTHON", "/work/venv26/bin/python")
PLANTED = {"inductor.cpp.inject_relu_bug_TESTING_ONLY": "accuracy"}


def _torch_of(python: str) -> str | None:
    try:
        out = subprocess.run([python, "-c", "import torch; print(torch.__version__)"],
                             capture_output=True, text=True, timeout=120)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def _finding(root: Path, path: Path, options: CheckOptions, worker: Worker):
    program = load_program(path)
    result = check_program(program, options, worker)
    assert result.is_bug, result.reason
    return write_finding(
        root, program, result, signature=dedup.signature(result, program),
        extra={"readable_signature": dedup.readable_signature(result, program),
               "versions": {**versions(), "torch": worker.torch_version}},
    )  # fmt: skip


def test_regress_two_real_torch_versions(tmp_path, worker):
    other = _torch_of(OTHER) if Path(OTHER).exists() else None
    here = _torch_of(sys.executable)
    if other is None or here is None or version_key(other) == version_key(here):
        pytest.skip(f"needs a second venv with another torch at {OTHER} (TORCHSMITH_OTHER_PYTHON)")
    older, newer = sorted([other, here], key=version_key)
    if not (older.startswith("2.6.") and version_key(newer) >= version_key("2.13.0")):
        pytest.skip(f"the corpus case is known fixed between 2.6 and 2.13, not {older}/{newer}")

    root = tmp_path / "findings"
    planted = _finding(root, ROOT / "src/torchsmith/examples/linear_relu.py",
                       CheckOptions(config=PLANTED, timeout=120), worker)  # fmt: skip
    with Worker(python=OTHER) as old_worker:  # the corpus bug only shows on the older torch
        old_worker.start()
        fixed = _finding(root, ROOT / "bench/issues/i137807_native_batch_norm_out.py",
                         CheckOptions(timeout=120), old_worker)  # fmt: skip
    assert fixed.result.stage.value == "aotautograd"

    res = CliRunner().invoke(
        main, ["regress", str(root), "--python", OTHER, "--python", sys.executable, "-j", "2"]
    )
    assert res.exit_code == 0, res.output
    print(res.stdout)

    t1 = json.loads((planted.folder / REGRESS_JSON).read_text())
    assert [(r["torch"], r["status"], r["verdict"]) for r in t1["rows"]] == [
        (older, "live", "mismatch"), (newer, "live", "mismatch"),
    ]  # fmt: skip
    assert all(r["stage"] == "inductor" and r["same_signature"] for r in t1["rows"])
    assert t1["summary"] == [f"still live in {newer} (the newest checked)"]

    t2 = json.loads((fixed.folder / REGRESS_JSON).read_text())
    assert [(r["torch"], r["status"], r["verdict"]) for r in t2["rows"]] == [
        (older, "live", "crash"), (newer, "passes", "pass"),
    ]  # fmt: skip
    assert t2["summary"] == [f"fixed between {older} and {newer}"]
    assert f"=> fixed between {older} and {newer}" in res.stdout
    assert f"=> still live in {newer}" in res.stdout

    # the report shows the table, between the error logs and collect_env's versions
    md = render(read_finding(fixed.folder), env="(env)")
    section = md[md.index("### Torch versions") : md.index("### Versions")]
    assert f"| {older} | crash | aotautograd | yes | ❌ live |" in section
    assert f"| {newer} | pass | - |  | ✅ passes |" in section
    assert f"- fixed between {older} and {newer}" in section
