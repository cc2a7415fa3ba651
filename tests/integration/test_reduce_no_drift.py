"""No drift: a candidate that fails another way, or feeds the target inputs of another kind, is
never accepted (real compiles with planted faults; written for issue #26).

``fn_two_faults.py`` holds a set literal (Dynamo's planted BUILD_SET fault: a crash at dynamo
under fullgraph) and a relu (Inductor's planted relu accuracy fault: a mismatch at inductor).
Deleting the set literal switches the failure from the first to the second.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from torchsmith.check import check_program
from torchsmith.options import CheckOptions
from torchsmith.program.load import load_program
from torchsmith.reduce import reduce_program
from torchsmith.reduce.interesting import Judge, Target
from torchsmith.reduce.source import view
from torchsmith.verdict import Stage, Verdict

pytestmark = pytest.mark.slow

DATA = Path(__file__).resolve().parents[1] / "quality" / "data"
RELU_BUG = "inductor.cpp.inject_relu_bug_TESTING_ONLY"
BUILD_SET = "dynamo.inject_BUILD_SET_unimplemented_TESTING_ONLY"
OPTIONS = CheckOptions(fullgraph=True, config={BUILD_SET: True, RELU_BUG: "accuracy"})


def _without_set_literal(source: str) -> str:
    return source.replace("    s = {1, 2}\n", "").replace(" * len(s)", "")


def test_deleting_the_set_literal_switches_the_failure_and_is_rejected(worker):
    program = load_program(DATA / "fn_two_faults.py")
    result = check_program(program, OPTIONS, worker)
    assert result.verdict is Verdict.CRASH and result.stage is Stage.DYNAMO
    switched = dataclasses.replace(program, source=_without_set_literal(program.source))
    other = check_program(switched, OPTIONS, worker)
    assert other.verdict is Verdict.MISMATCH and other.stage is Stage.INDUCTOR  # it does fail
    target = Target.from_result(result, OPTIONS)
    judge = Judge(worker, OPTIONS, target)
    assert judge.test(program).interesting
    assert not judge.test(switched).interesting
    # Under the rung where both faults can show (an unlocalized target runs the backend), the
    # switched program fails, but as a mismatch: still rejected.
    at_backend = dataclasses.replace(target, rung="inductor", below=None)
    rejected = Judge(worker, OPTIONS, at_backend).test(switched)
    assert not rejected.interesting and rejected.verdict == "mismatch"


def test_a_tensor_argument_replaced_by_an_int_is_rejected_though_it_crashes_the_same(worker):
    program = load_program(DATA / "fn_two_faults.py")
    result = check_program(program, OPTIONS, worker)
    judge = Judge(worker, OPTIONS, Target.from_result(result, OPTIONS))
    judge.kinds = judge.input_kinds(program)
    assert judge.kinds == [["tensor", "int"]]
    # relu of an int would raise in eager: the candidate keeps the crash by dropping it too
    as_int = program.source.replace("torch.relu(x) + 1.0", "x + 1.0")
    as_int = as_int.replace("[torch.randn(8, 4), 3]", "[0, 3]")
    candidate = dataclasses.replace(program, source=as_int)
    judge_no_kinds = Judge(worker, OPTIONS, judge.target)
    assert judge_no_kinds.test(candidate).interesting  # same crash, same key ...
    att = judge.test(candidate)
    assert not att.interesting and "inputs changed kind" in att.reason  # ... but not accepted


def test_reduction_of_the_two_fault_program_never_accepts_the_other_failure(worker):
    res = reduce_program(
        load_program(DATA / "fn_two_faults.py"),
        OPTIONS,
        worker=worker,
        time_budget=90,
        verify_script=True,
    )
    assert res.confirmed and res.script_reproduces is True, res.error
    r = res.result
    assert r.verdict is Verdict.CRASH and r.stage is Stage.DYNAMO
    assert "BUILD_SET" in r.evidence["message"]
    fn = view(res.reduced.source, "fn").forward
    assert fn is not None and any(isinstance(n, ast.Set) for n in ast.walk(fn))  # the set stays
    accepted = [a for a in res.attempts if a.accepted]
    assert accepted and all(a.verdict == "crash" for a in accepted)
    assert any(not a.interesting and a.verdict == "pass" for a in res.attempts)
    assert len(fn.body) <= 3


def test_a_failure_that_does_not_reoccur_is_reported_flaky_with_its_rate(worker):
    program = load_program(DATA / "fn_flaky.py")
    options = CheckOptions(fullgraph=True, config={BUILD_SET: True}, localize=False)
    for _ in range(4):  # every other load crashes: one of these checks does
        result = check_program(program, options, worker)
        if result.verdict is Verdict.CRASH:
            break
    assert result.verdict is Verdict.CRASH
    res = reduce_program(program, options, worker=worker, result=result, time_budget=30)
    assert not res.reproduced and res.error.startswith("flaky: the failure showed in")
    assert 0 < res.stats["flaky_rate"] < 1 and res.reduced is program
