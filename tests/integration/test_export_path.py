"""The deployment path through the real check in the session's worker: ``torch.export`` (with a
``Dim.DYNAMIC`` dim for a call sequence whose shapes differ), ``run_decompositions()``,
``aoti_compile_and_package`` and ``aoti_load_package``, judged against eager and float64; an
export user error judged the program's fault; Inductor's planted relu faults, which AOTInductor's
C++ codegen shares, caught on the export path with the stage that names the failing step (and
by the standalone repro script, which runs the same path).
Every AOTInductor build costs a C++ compile of the wrapper, so the programs are tiny."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from torchsmith.check import check_program, effective_options
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program
from torchsmith.program.render import render_script
from torchsmith.verdict import Phase, Stage, Verdict

RELU = """import torch


def fn(x):
    return torch.relu(x * 2.0 - 0.5) + x.sum(0)


def get_inputs():
    g = torch.Generator().manual_seed(3)
    return [torch.randn(4, 8, generator=g)]


def get_calls():
    g = torch.Generator().manual_seed(3)
    return [[torch.randn(4, 8, generator=g)], [torch.randn(6, 8, generator=g)]]


compile_kwargs = {"backend": "aoti"}
"""

DATA_DEPENDENT = """import torch


def fn(x):
    if x.sum() > 0:  # data-dependent control flow: torch.export refuses it
        return x * 2
    return x - 1


def get_inputs():
    return [torch.ones(3, 3)]


compile_kwargs = {"backend": "aoti"}
"""


def program(source: str, name: str) -> Program:
    return Program(source, "fn", name, "generated")


def options(**kw) -> CheckOptions:
    return CheckOptions(timeout=600, **kw)


def test_a_valid_program_passes_the_export_path_and_leaves_no_package(worker):
    result = check_program(program(RELU, "relu_seq"), options(), worker)
    assert result.verdict is Verdict.PASS, (result.reason, result.log_tail[-2000:])
    assert result.evidence.get("backend") == "aoti" and result.evidence.get("calls") == 2
    left = list((Path(worker.log_dir) / "aoti").glob("pkg-*"))
    assert left == [], left  # the package is deleted once loaded


def test_an_export_user_error_is_the_programs_fault_not_a_crash(worker):
    result = check_program(program(DATA_DEPENDENT, "data_dependent"), options(), worker)
    assert result.verdict is Verdict.INVALID and result.phase is Phase.COMPILED, result.reason
    assert "torch.export rejects this program" in result.reason
    assert not result.is_bug and result.exit_code == 2


def test_the_planted_relu_accuracy_fault_is_caught_at_aoti_run(worker, tmp_path):
    bug = {"inductor.cpp.inject_relu_bug_TESTING_ONLY": "accuracy"}
    result = check_program(program(RELU, "relu_acc"), options(config=bug), worker)
    assert result.is_bug and result.verdict is Verdict.MISMATCH, result.reason
    assert result.stage is Stage.AOTI_RUN, result.ladder
    assert result.ladder["export"] == result.ladder["export_decomp"] == "pass"
    assert result.ladder["aoti_compile"] == "pass"  # the build alone is fine: its code is not
    # the standalone repro runs the export path too, and shows the failure (exit 1)
    script = tmp_path / "repro.py"
    opts = effective_options(program(RELU, "relu_acc"), options(config=bug))
    script.write_text(render_script(program(RELU, "relu_acc"), opts))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=900)
    assert run.returncode == 1 and "VERDICT: mismatch" in run.stdout, run.stdout[-2000:]


def test_the_planted_relu_compile_error_is_caught_at_aoti_compile(worker):
    bug = {"inductor.cpp.inject_relu_bug_TESTING_ONLY": "compile_error"}
    result = check_program(program(RELU, "relu_cerr"), options(config=bug), worker)
    assert result.is_bug and result.verdict is Verdict.CRASH, result.reason
    assert result.stage is Stage.AOTI_COMPILE, result.ladder
    assert "CppCompileError" in result.evidence["message"] + result.evidence["root_type"]


#: export narrows a dynamic dim from its example: `diag(x, 2)` of a (5, 3) example has length 1,
#: so the exported program keeps `min(rows, cols - 2) < 2`; a package never checks that guard
#: and computed garbage for the (16, 16) call (a false alarm of the 60-minute export run).
DIAG = """import torch


def fn(x):
    return (torch.diag(x, 2) + 1).amax(dim=-1)


def get_calls():
    g = torch.Generator().manual_seed(0)
    return [[torch.randint(-9, 10, (5, 3), generator=g)], [torch.randint(-9, 10, (16, 16), generator=g)]]
"""


def test_a_call_outside_the_guards_export_kept_is_the_programs_fault(worker):
    result = check_program(program(DIAG, "diag_guard"), options(backend="export_decomp"), worker)
    assert result.verdict is Verdict.INVALID and result.phase is Phase.COMPILED, result.reason
    assert "outside what torch.export kept" in result.reason and not result.is_bug


BUFFER_UPDATE = """import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(3))

    def forward(self, x):
        self.count.add_(x.mean(0))
        return x * 2.0 + self.count


def get_inputs():
    return [torch.randn(4, 3, generator=torch.Generator().manual_seed(5))]
"""


def test_a_module_updating_its_buffer_passes_the_decomposition_rung(worker):
    """The module is exported as the harness's wrapper's one submodule: registered under two
    names its buffer was an aliased input, and `run_decompositions` refused every program that
    updates a buffer ("expected compiled_fn to be GraphModule"), a false crash at export-decomp."""
    prog = Program(BUFFER_UPDATE, "Model", "buffer_update", "generated")
    result = check_program(prog, options(backend="export_decomp"), worker)
    assert result.verdict is Verdict.PASS, (result.reason, result.log_tail[-2000:])
