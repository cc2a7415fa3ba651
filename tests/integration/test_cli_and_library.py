"""The command line and the library call, end to end in subprocesses and workers."""

import json
import subprocess
import sys

import torch

import torchsmith
from torchsmith import Stage, Verdict

from .conftest import EXAMPLES

RELU_BUG = "inductor.cpp.inject_relu_bug_TESTING_ONLY"


def cli(*args, timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "torchsmith", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_check_exit_codes_and_json_schema():
    bug = cli(
        "check", str(EXAMPLES / "linear_relu.py"), "--config", f"{RELU_BUG}=accuracy", "--json"
    )
    assert bug.returncode == 1, bug.stderr
    d = json.loads(bug.stdout.strip().splitlines()[-1])
    assert d["schema"] == 1 and d["verdict"] == "mismatch" and d["stage"] == "inductor"
    assert d["is_bug"] and d["symptom"] == "wrong-value" and d["program"] == "linear_relu"
    assert "MISMATCH at inductor" in bug.stderr.strip().splitlines()[-1]

    invalid = cli("check", str(EXAMPLES / "s2_mm_invalid.py"))
    assert invalid.returncode == 2
    assert "`torch.mm` got `[2, 10]` and `[2, 10]`" in invalid.stdout
    assert len([ln for ln in invalid.stderr.splitlines() if "INVALID" in ln]) == 1

    ok = cli("check", str(EXAMPLES / "linear_relu.py"))
    assert ok.returncode == 0 and "PASS" in ok.stdout


def test_usage_errors_exit_2_with_one_line(tmp_path):
    missing = cli("check", str(tmp_path / "nope.py"))
    assert missing.returncode == 2 and "no such file" in missing.stderr
    bad = cli("check", str(EXAMPLES / "linear_relu.py"), "--config", "bogus=1")
    assert bad.returncode == 2 and "--config key 'bogus'" in bad.stderr
    unknown = cli("check", str(EXAMPLES / "linear_relu.py"), "--config", "inductor.no_such_knob=1")
    assert unknown.returncode == 2 and "no_such_knob" in unknown.stderr


def test_rendered_repro_runs_alone_and_shows_the_failure(tmp_path):
    out = tmp_path / "repro.py"
    r = cli(
        "render",
        str(EXAMPLES / "linear_relu.py"),
        "--config",
        f"{RELU_BUG}=accuracy",
        "-o",
        str(out),
    )
    assert r.returncode == 0, r.stderr
    run = subprocess.run([sys.executable, str(out)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 1
    assert "same(eager, compiled, fp64_ref): False" in run.stdout
    assert "VERDICT: mismatch" in run.stdout
    clean = tmp_path / "clean.py"
    cli("render", str(EXAMPLES / "linear_relu.py"), "-o", str(clean))
    run = subprocess.run([sys.executable, str(clean)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and "VERDICT: pass" in run.stdout


def test_repro_dir_gets_a_script_per_bug(tmp_path):
    r = cli(
        "check",
        str(EXAMPLES / "linear_relu.py"),
        "--config",
        f"{RELU_BUG}=runtime_error",
        "--repro-dir",
        str(tmp_path),
        "--no-localize",
    )
    assert r.returncode == 1
    script = tmp_path / "linear_relu_repro.py"
    assert script.exists()
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 1 and "VERDICT: crash" in run.stdout


class TwoLayer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(6, 6)

    def forward(self, x):
        return torch.relu(self.fc(x)).sum(-1)


def test_library_call_on_a_live_module_and_on_a_path():
    r = torchsmith.check(TwoLayer(), [torch.randn(3, 6)])
    assert r.verdict is Verdict.PASS
    r = torchsmith.check(TwoLayer(), [torch.randn(3, 6)], config={RELU_BUG: "accuracy"})
    assert r.verdict is Verdict.MISMATCH and r.stage is Stage.INDUCTOR
    r = torchsmith.check(str(EXAMPLES / "s2_mm_invalid.py"))
    assert r.verdict is Verdict.INVALID
