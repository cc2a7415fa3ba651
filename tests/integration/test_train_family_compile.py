"""``train`` family programs through the real check (eager twice, fp64, Inductor) in the
session's worker: a compiled SGD step on an MLP with compiled autograd passes (losses,
updated parameters and gradients judged against eager and float64), and Inductor's planted
relu fault in the step's forward is caught as a wrong value."""

from __future__ import annotations

from torchsmith.check import check_program
from torchsmith.generate.train.generator import TrainGenerator
from torchsmith.options import CheckOptions
from torchsmith.program.format import declared_settings
from torchsmith.verdict import Verdict


def relu_step():
    """The first seed whose program is a one-call relu MLP with compiled autograd."""
    gen = TrainGenerator(models="mlp", acts="relu", optimizers="sgd", sequence_prob=0.0)
    for seed in range(50):
        p = next(iter(gen.candidates(seed)))
        if declared_settings(p.source)[1].get("dynamo.compiled_autograd"):
            return p
    raise AssertionError("no compiled-autograd program in 50 seeds")


def test_a_compiled_training_step_passes(worker):
    p = relu_step()
    result = check_program(p, CheckOptions(timeout=600, localize=False), worker)
    assert result.verdict is Verdict.PASS, (result.reason, p.source)
    assert result.evidence.get("graphs", 0) >= 1, result.evidence  # it compiled, not eager


def test_the_planted_relu_fault_in_a_training_step_is_caught(worker):
    p = relu_step()
    bug = {"inductor.cpp.inject_relu_bug_TESTING_ONLY": "accuracy"}
    result = check_program(p, CheckOptions(timeout=600, localize=False, config=bug), worker)
    assert result.is_bug and result.verdict is Verdict.MISMATCH, (result.reason, p.source)
    assert result.evidence["output"].startswith("out[")  # losses, parameters or gradients
