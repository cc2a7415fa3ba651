"""minify, profile, logs and --only end to end: real torch.compile runs in real workers.

The failures come from Inductor's injected relu faults (``inductor.cpp.inject_relu_bug_TESTING_ONLY
=compile_error``) and Dynamo's injected BUILD_SET fault. Programs are tiny on purpose: PyTorch's
minifier compiles one kernel per query.
"""

import json
import subprocess
import sys

from torchsmith.check import check_program
from torchsmith.finding import read_finding, write_finding
from torchsmith.options import CheckOptions
from torchsmith.program.load import load_program
from torchsmith.troubleshoot import explain_program, logs_program, minify_finding, profile_program

RELU = "inductor.cpp.inject_relu_bug_TESTING_ONLY"
CRASH = CheckOptions(config={RELU: "compile_error"}, localize=False, timeout=180)

TINY = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        y = torch.sin(x)
        y = torch.relu(y)
        return y + 1


def get_inputs():
    return [torch.randn(4, 8)]
"""

BLOCKS = """import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, relu):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.relu = relu

    def forward(self, x):
        y = self.fc(x)
        return torch.relu(y) if self.relu else torch.tanh(y)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block1 = Block(True)
        self.block2 = Block(False)

    def forward(self, x):
        return self.block2(self.block1(x))


def get_inputs():
    return [torch.randn(4, 8)]
"""

BREAKS = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        y = torch.cos(x)
        print("saw", tuple(y.shape))
        return torch.sin(y)


def get_inputs():
    return [torch.randn(4, 8)]
"""

SET = """import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        keys = {0, 1}
        return torch.relu(x) * len(keys)


def get_inputs():
    return [torch.randn(4, 8)]
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def cli(*args, timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "torchsmith", *args], capture_output=True, text=True, timeout=timeout
    )


def test_minify_a_finding_with_pytorchs_aot_minifier_and_check_the_repro(tmp_path, worker):
    program = load_program(write(tmp_path, "tiny.py", TINY), scripts=False)
    original = check_program(program, CRASH, worker)
    assert (original.verdict.value, original.stage.value) == ("crash", "inductor")
    finding = write_finding(tmp_path / "findings", program, original)

    r = minify_finding(finding.folder, time_budget=240, worker=worker)
    assert (r["after"], r["repro_level"], r["status"]) == ("aot", 2, "minified"), r["reason"]
    assert r["queries"] > 0 and r["nodes"]["end"] < r["nodes"]["start"]
    assert (
        "aten.relu" in r["minified_source"]
        and "sin" not in r["minified_source"].split("def forward")[1].split("return")[1]
    )
    assert r["statements"] <= 2  # relu, return
    assert r["check"]["verdict"] == "crash" and r["same_failure"] is True
    out = finding.folder / "pytorch-minifier"
    assert (out / "minifier_launcher.py").exists() and (out / "repro.py").exists()
    assert json.loads((out / "minify.json").read_text())["status"] == "minified"
    minified = read_finding(r["finding"])  # the finding folder format, reused
    assert minified.meta["minified_from"] == finding.id
    assert minified.result.verdict.value == "crash" and minified.program.model == "Model"


def test_minify_says_why_it_gives_up_on_a_dynamo_fault(tmp_path):
    prog = write(tmp_path, "set.py", SET)
    out = tmp_path / "out"
    r = cli(
        "minify", str(prog), "-o", str(out), "--backend", "eager", "--fullgraph",
        "--config", "dynamo.inject_BUILD_SET_unimplemented_TESTING_ONLY=True", "--timeout", "120",
    )  # fmt: skip
    assert r.returncode == 1, r.stderr
    assert "TORCHDYNAMO_REPRO_AFTER=dynamo" in r.stdout
    assert "status: gave up: PyTorch's minifier wrote no minifier_launcher.py" in r.stdout
    report = json.loads((out / "minify.json").read_text())
    assert report["original"] == {"verdict": "crash", "stage": "dynamo"}
    assert "Unsupported" in report["reason"] and report["check"] is None


def test_profile_reports_stages_counts_and_eager_vs_compiled(tmp_path, worker):
    program = load_program(write(tmp_path, "breaks.py", BREAKS), scripts=False)
    trace = tmp_path / "trace.json"
    r = profile_program(
        program, CheckOptions(timeout=180), warmup=1, repeat=5, trace=str(trace), worker=worker
    )
    assert r["error"] is None
    labels = [s["label"] for s in r["compile"]["stages"]]
    for stage in ("total", "Dynamo trace", "AOTAutograd", "Inductor", "lowering", "guards"):
        assert any(lbl.startswith(stage) for lbl in labels), (stage, labels)
    assert all(s["s"] >= 0 for s in r["compile"]["stages"]) and r["compile"]["first_call_s"] > 0
    assert (r["graphs"], r["graph_breaks"], r["recompiles"]) == (2, 1, 0)
    rt = r["runtime"]
    assert rt["repeat"] == 5 and rt["eager"]["median_ms"] > 0 and rt["compiled"]["median_ms"] > 0
    assert rt["speedup"] == round(rt["eager"]["median_ms"] / rt["compiled"]["median_ms"], 3)
    assert "traceEvents" in json.loads(trace.read_text())


def test_logs_group_by_step_and_name_the_step_that_failed(tmp_path, worker):
    eager = CheckOptions(backend="eager", timeout=120)
    breaks = load_program(write(tmp_path, "breaks.py", BREAKS), scripts=False)
    r = logs_program(breaks, ["graph_breaks", "guards"], eager, worker)
    assert r["error"] is None and r["failed_step"] is None
    ids = {s["compile_id"] for s in r["sections"] if s["compile_id"]}
    assert {"0/0", "1/0"} <= ids  # the frame, then its continuation after the break
    step1 = [s for s in r["sections"] if s["step"] == 1]
    assert step1 and all(s["status"] in ("done", "restarted") for s in step1)
    arts = {(s["title"], rec["artifact"]) for s in r["sections"] for rec in s["records"]}
    assert ("step 1: Dynamo", "graph_breaks") in arts
    assert ("guards and setup", "guards") in arts

    tiny = load_program(write(tmp_path, "tiny.py", TINY), scripts=False)
    r = logs_program(tiny, ["dynamo", "inductor"], CRASH, worker)
    assert r["error"] is not None and "CppCompileError" in r["error"]["message"]
    assert r["failed_step"] == {"compile_id": "0/0", "step": 3, "title": "Inductor"}
    try:
        logs_program(tiny, ["no_such_log"], CRASH, worker)
        raise AssertionError("an unknown TORCH_LOGS name must be refused")
    except ValueError as e:
        assert "no_such_log" in str(e)


def test_only_compiles_just_the_named_part_in_check_and_explain(tmp_path, worker):
    program = load_program(write(tmp_path, "blocks.py", BLOCKS), scripts=False)
    fine = check_program(program, CRASH.replace(only="block2"), worker)
    assert fine.verdict.value == "pass", fine.reason  # the relu lives in block1, run eagerly
    assert fine.evidence["graphs"] == 1  # block2 was compiled: one graph
    bad = check_program(program, CRASH.replace(only="nope"), worker)
    assert (bad.verdict.value, bad.phase.value) == ("invalid", "load")
    assert "candidates: block1, block1.fc" in bad.reason

    eager = CheckOptions(backend="eager", timeout=120)
    ex = explain_program(program, eager.replace(only="self.block1"), worker)
    assert ex["graph_count"] == 1 and ex["only"] == "self.block1"
    assert "torch.relu" in ex["graphs"][0]["ops"] and "torch.tanh" not in ex["graphs"][0]["ops"]
    fc = explain_program(program, eager.replace(only="block2.fc"), worker)  # a torch.nn module
    assert fc["graph_count"] == 1 and fc["graphs"][0]["ops"] == ["torch._C._nn.linear"]
