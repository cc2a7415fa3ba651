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


OUT_OF_BOUNDS = """
import torch

class Model(torch.nn.Module):
    def forward(self, x, i):
        return x[i] * 2

def get_inputs():
    return [torch.randn(4), torch.tensor([0, 7])]
"""


def test_a_device_side_fault_is_judged_and_the_next_program_gets_a_fresh_worker(tmp_path):
    # An out-of-bounds index is a device-side assert on CUDA: sticky, every later kernel of
    # the process fails. The program is invalid (eager raises); the worker retires after it,
    # and the next program passes in a fresh process instead of inheriting the fault.
    from torchsmith.execute.worker import Worker

    bad = tmp_path / "oob.py"
    bad.write_text(OUT_OF_BOUNDS)
    with Worker(log_dir=tmp_path / "w") as w:
        r = check_program(load_program(bad), CheckOptions(device="cuda"), w)
        assert r.verdict is Verdict.INVALID, r.reason
        assert w.retired == 1 and not w.alive
        ok = check_program(
            load_program(EXAMPLES / "linear_relu.py"), CheckOptions(device="cuda"), w
        )
        assert ok.verdict is Verdict.PASS, ok.reason


def test_the_probe_modes_run_on_cuda_tensors():
    # The H100 campaign's rounding runs all failed ("Expected all tensors to be on the same
    # device, cuda:0 and cpu"); the boundary mode's rotated sort/topk/argmax indices were made
    # on the CPU as well. Every mode must answer on the tensor's own device.
    from torchsmith.oracle.boundary import BoundaryMode
    from torchsmith.oracle.perturb import PrecisionMode, RoundingMode

    x = torch.tensor([[1.0, 1.0, 2.0, 0.5], [3.0, 3.0, 3.0, -1.0]], device="cuda")

    def fn(a):
        v, i = a.sort(-1)
        t, j = a.topk(2, -1)
        return (
            (a @ a.T).softmax(-1).sum() + v.sum() + t.sum() + i.sum() + j.sum() + a.argmax(-1).sum()
        )

    plain = fn(x)
    for mode in (RoundingMode(0, 1.0, 4.0), PrecisionMode(torch.float32), BoundaryMode(1, 4.0)):
        with mode:
            out = fn(x)
        assert out.device == plain.device and torch.isfinite(out), type(mode).__name__
