"""A small soak in CI: 140 programs with one planted fault of each kind, a SIGKILL mid-way and
``--resume``: every seed recorded once, every fault judged as planted, nothing left behind."""

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "soak.py"


def test_soak_140_programs_one_sigkill(tmp_path):
    out = tmp_path / "campaign"
    proc = subprocess.run(
        [sys.executable, str(BENCH), "--count", "140", "--kills", "1", "--seed", "0",
         "--backend", "aot_eager", "--timeout", "10", "--out", str(out)],
        capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    text = proc.stdout
    summary = json.loads(text[: text.rindex("}") + 1])
    assert proc.returncode == 0, text + proc.stderr[-2000:]
    assert summary["programs recorded"] == "140/140" and summary["duplicated"] == 0
    faults = summary["planted faults (right/planted)"]
    assert sorted(faults) == ["abort", "child", "exit", "hang", "memory", "output", "segfault"]
    assert all(v == "1/1" for v in faults.values()), faults
    assert summary["processes left"] == [] and summary["tool deaths"] == []
