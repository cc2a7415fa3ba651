"""Scripts judged on the code people run (issue 27): ``torch.compile``'s semantics in every
mode, per-call verdicts, and training outside the compiled call.

* an attribute written on the compiled module between calls (a LoRA-style adapter switch)
  reaches the original module in eager as in compiled: the script is judged, not ``invalid``;
* ``torch.compile`` as a value (compiled autograd's compiler, ``functools.partial``, a decorator
  factory) works in eager and compiled runs;
* a call that raises in eager (float64 fed to a float32 model) is invalid alone: the planted
  fault in the call before it is still reported, at its stage, naming the invalid call;
* a backward compiled after the call (``torch.autograd.grad``, ``loss.backward()``) that fails
  only when compiled is a crash, localized by the ladder; wrong gradients and wrongly updated
  parameters after optimizer steps are mismatches, judged with the float64 rule.

Every fault is a real one planted in Inductor (``inject_relu_bug_TESTING_ONLY``), and every
script passes on the correct compiler.
"""

from __future__ import annotations

import pytest

from torchsmith import CheckOptions, Stage, Verdict, check_program
from torchsmith.program.load import load_program

from .conftest import DATA

FAULT = "inductor.cpp.inject_relu_bug_TESTING_ONLY"
WORKER: list = []


@pytest.fixture(autouse=True)
def _worker(worker):
    WORKER[:] = [worker]


def check(path: str, fault: str | None = None):
    program = load_program(DATA / f"{path}.py")
    assert program.origin == "script"
    config = {FAULT: fault} if fault else {}
    return check_program(program, CheckOptions(timeout=300, config=config), WORKER[0])


@pytest.mark.parametrize(
    "name", ["issue_scripts/adapter_switch", "issue_scripts/compiled_autograd_compiler",
             "scripts/compile_as_value"],
)  # fmt: skip
def test_the_stand_in_has_torch_compile_s_semantics_so_the_script_is_judged(name):
    good = check(name)
    assert good.verdict is Verdict.PASS, good.reason
    bad = check(name, "accuracy")
    assert bad.verdict is Verdict.MISMATCH and bad.stage is Stage.INDUCTOR, bad.reason


def test_compiled_autograd_s_gradients_are_judged():
    good = check("issue_scripts/compiled_autograd_compiler")
    assert good.evidence["calls"] == 1 and good.evidence["sites"] == ["line 11: Sequential"]


def test_a_call_invalid_in_eager_leaves_the_bug_in_the_call_before_it():
    r = check("issue_scripts/invalid_last_call")  # the script plants the fault itself
    assert r.verdict is Verdict.MISMATCH and r.stage is Stage.INDUCTOR, r.reason
    assert r.evidence["output"].startswith("calls[0]")
    (invalid,) = r.evidence["invalid_calls"]
    assert invalid["call"] == "calls[1]" and "dtype" in invalid["error"]
    assert "invalid in eager: calls[1]" in r.reason


def test_a_backward_that_only_fails_compiled_after_the_call_is_a_crash_at_its_stage():
    assert check("scripts/backward_custom_grad").verdict is Verdict.PASS
    r = check("scripts/backward_custom_grad", "compile_error")
    assert r.verdict is Verdict.CRASH and r.stage is Stage.INDUCTOR, r.reason
    assert "after its calls" in r.reason and r.ladder["aot_eager"] == "pass"


def test_wrong_gradients_of_autograd_grad_on_a_compiled_output_are_a_mismatch():
    r = check("scripts/backward_custom_grad", "accuracy")  # the forward has no relu
    assert r.verdict is Verdict.MISMATCH and r.stage is Stage.INDUCTOR, r.reason
    assert r.evidence["output"].startswith("grad['autograd.grad[0][0]']")


def test_optimizer_steps_on_compiled_outputs_are_judged():
    good = check("scripts/training_steps")
    assert good.verdict is Verdict.PASS, good.reason
    bad = check("scripts/training_steps", "accuracy")  # only the backward has relu
    assert bad.verdict is Verdict.MISMATCH and bad.stage is Stage.INDUCTOR, bad.reason
    crash = check("scripts/training_steps", "compile_error")  # in loss.backward(), step 1
    assert crash.verdict is Verdict.CRASH and crash.stage is Stage.INDUCTOR, crash.reason
    assert "after its calls" in crash.reason
