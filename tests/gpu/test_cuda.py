"""GPU tier: the same verdicts on CUDA (Triton codegen). Skipped without a CUDA device."""

import pytest
import torch

from torchsmith import CheckOptions, Stage, Verdict, check_program, load_program

from ..integration.conftest import EXAMPLES

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")


def test_clean_program_passes_on_cuda():
    r = check_program(load_program(EXAMPLES / "linear_relu.py"), CheckOptions(device="cuda"))
    assert r.verdict is Verdict.PASS, r.reason


def test_injected_triton_accuracy_bug_is_mismatch_at_inductor():
    opts = CheckOptions(
        device="cuda", config={"inductor.triton.inject_relu_bug_TESTING_ONLY": "accuracy"}
    )
    r = check_program(load_program(EXAMPLES / "linear_relu.py"), opts)
    assert r.verdict is Verdict.MISMATCH and r.stage is Stage.INDUCTOR
