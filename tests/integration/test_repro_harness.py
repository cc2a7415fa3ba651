"""The standalone repro judges as the worker does: NaN patterns and layouts too (slow: compiles).

A reduced finding's ``repro.py`` must show its failure alone (exit 1, the same verdict kind).
``same()`` with a float64 reference that is NaN passes anything, so a NaN where eager and fp64
agree on NaN needs its own check; a stride-only difference needs one too.
"""

import subprocess
import sys

import pytest
import torch

from torchsmith.options import CheckOptions
from torchsmith.program.format import Program, declared_settings
from torchsmith.program.plain import plain_script
from torchsmith.program.render import render_script

pytestmark = pytest.mark.slow

#: torch 2.13.0 CPU: var_mean of an empty tensor, compiled mean 0. where eager and fp64 give
#: nan (public issue #197108).
VAR_MEAN = """
import torch


def fn(x0):
    return torch.var_mean(x0)


def get_inputs():
    return torch.zeros(0)
"""

PASSING = """
import torch


def fn(x):
    return torch.nan_to_num(torch.log(x)), x.t().contiguous()


def get_inputs():
    return [torch.rand(3, 4) + 0.5]
"""


def _run(source: str, tmp_path) -> subprocess.CompletedProcess:
    path = tmp_path / "repro.py"
    path.write_text(render_script(Program(source=source, model="fn"), CheckOptions()))
    return subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, timeout=600, check=False
    )


@pytest.mark.skipif(not torch.__version__.startswith("2.13"), reason="the bug of torch 2.13.0")
def test_a_nan_mismatch_whose_fp64_run_is_nan_reproduces_alone(tmp_path):
    proc = _run(VAR_MEAN, tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "VERDICT: nan-mismatch" in proc.stdout


def test_a_correct_program_passes_alone_with_a_bare_tensor_input_too(tmp_path):
    proc = _run(PASSING, tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "VERDICT: pass" in proc.stdout


#: A compiled run that writes its input wrong and returns the same value as eager: the planted
#: Inductor fault adds 1 to relu's results, here only in the input written in place.
WRITES_INPUT = """
import torch


def fn(x):
    x.relu_()
    return x.sum() * 0


def get_inputs():
    return [torch.randn(16, generator=torch.Generator().manual_seed(0))]


compile_config = {"inductor.cpp.inject_relu_bug_TESTING_ONLY": "accuracy"}
"""

WRITES_INPUT_RIGHT = WRITES_INPUT.replace('"accuracy"', "None")


def test_an_input_written_wrong_in_place_reproduces_alone(tmp_path):
    # The worker compares inputs written in place; the harness compared outputs only, so a
    # finding of that kind passed as its own repro (a bf16 batch_norm's running stats, 2.13).
    proc = _run(WRITES_INPUT, tmp_path)
    assert "inputs written in place: [0]" in proc.stdout
    assert proc.returncode == 1 and "VERDICT: mismatch" in proc.stdout, proc.stdout + proc.stderr
    ok = _run(WRITES_INPUT_RIGHT, tmp_path)
    assert ok.returncode == 0 and "VERDICT: pass" in ok.stdout, ok.stdout + ok.stderr


#: torch 2.13.0 CPU: Inductor's erf loses its relative precision near 0 (notes/false-alarms.md:
#: 1.4e7 ulps on tiny inputs), which same()'s absolute tolerance lets through.
TINY_ERF = """
import torch


def fn(x):
    return torch.erf(x)


def get_inputs():
    return [torch.linspace(1e-12, 1e-9, 64)]
"""


@pytest.mark.skipif(not torch.__version__.startswith("2.13"), reason="the loss of torch 2.13.0")
def test_a_finding_of_the_ulp_rule_reproduces_alone(tmp_path):
    # The worker judges tiny outputs of accurate functions in ulps; the harness judged with
    # same() only, so 8 of 8 `imprecise` findings of a shapes-surface run passed as their own
    # repro.
    proc = _run(TINY_ERF, tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "same(eager, compiled, fp64_ref): True" in proc.stdout
    assert "ulps from fp64" in proc.stdout and "VERDICT: mismatch (in ulps" in proc.stdout


#: Forward values equal everywhere; the gradient is 2 under compile, 1 in eager (the program
#: reads torch.compiler.is_compiling(), a stand-in for a compiler that gets only the backward
#: wrong: the project's own program, not a mock of torch).
GRAD_ONLY = """
import torch


def fn(x, w):
    k = 2.0 if torch.compiler.is_compiling() else 1.0
    return x * k - (x * (k - 1.0)).detach() + w * 0.5


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g)]
"""


@pytest.mark.parametrize("declared", [True, False])
def test_a_gradient_only_failure_reproduces_alone_when_gradients_are_judged(tmp_path, declared):
    source = GRAD_ONLY + ('\ncheck_options = {"grad": True}\n' if declared else "")
    script = tmp_path / "repro.py"
    opts = CheckOptions(backend="eager")
    script.write_text(render_script(Program(source, "fn", "grad_only", "generated"), opts))
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    if declared:  # the harness judges [outputs, gradients]: the gradients differ
        assert run.returncode == 1 and "VERDICT: mismatch" in run.stdout, run.stdout[-2000:]
    else:  # outputs alone agree
        assert run.returncode == 0 and "VERDICT: pass" in run.stdout, run.stdout[-2000:]
    # the report's plain repro judges the same parts
    program = Program(source, "fn", "grad_only", "generated")
    plain = tmp_path / "plain.py"
    plain.write_text(plain_script(program, opts.with_declared(*declared_settings(source))))
    run = subprocess.run([sys.executable, str(plain)], capture_output=True, text=True, timeout=600)
    want = "same(eager, compiled, fp64_ref): " + ("False" if declared else "True")
    assert want in run.stdout, run.stdout[-2000:] + run.stderr[-2000:]
