"""``torchsmith.testing.assert_compiles_like_eager`` on live objects, judged in real workers.

Passing: a module, a function with keyword arguments and gradients, a module whose file is not
on ``sys.path``. Failing: Inductor's planted relu fault (a real wrong-code compiler fault) and a
model that eager itself rejects (cannot be judged).
"""

import importlib.util
import sys

import pytest
import torch
from torch import nn

from torchsmith.testing import assert_compiles_like_eager
from torchsmith.verdict import Verdict

RELU_FAULT = {"inductor.cpp.inject_relu_bug_TESTING_ONLY": "accuracy"}


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.fc(x)) * 2


class Misaligned(nn.Module):
    def forward(self, x):
        return torch.mm(x, x)  # [2, 10] @ [2, 10]: eager raises


def scaled(x, scale=1.0):
    return torch.relu(x).sin() * scale


def test_a_passing_module_returns_its_result():
    torch.manual_seed(0)
    result = assert_compiles_like_eager(Block(), [torch.randn(4, 8)])
    assert result.verdict is Verdict.PASS


def test_the_planted_relu_fault_fails_with_the_verdict_stage_and_figures():
    torch.manual_seed(0)
    with pytest.raises(AssertionError) as info:
        assert_compiles_like_eager(Block(), [torch.randn(4, 8)], config=RELU_FAULT)
    text = str(info.value)
    assert text.startswith("torch.compile differs from eager: Block: MISMATCH at inductor")
    assert "stage: inductor" in text and "compiled vs fp64: max abs" in text
    assert "aot_eager pass" in text


def test_a_function_with_kwargs_and_gradients_passes():
    result = assert_compiles_like_eager(
        scaled, [torch.randn(4, 8, requires_grad=True)], kwargs={"scale": 3.0}, grad=True
    )
    assert result.verdict is Verdict.PASS and result.options["grad"] is True


def test_a_program_eager_rejects_cannot_be_judged_and_fails():
    with pytest.raises(AssertionError, match=r"cannot be judged: Misaligned: INVALID"):
        assert_compiles_like_eager(Misaligned(), [torch.randn(2, 10)])


def test_a_module_from_a_file_off_sys_path_is_loaded_from_its_file(tmp_path, monkeypatch):
    (tmp_path / "offpath_models.py").write_text(
        "import torch\n\n\nclass Tanh2(torch.nn.Module):\n"
        "    def forward(self, x):\n        return torch.tanh(x) * 2 + 1\n"
    )
    spec = importlib.util.spec_from_file_location("offpath_models", tmp_path / "offpath_models.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "offpath_models", module)
    spec.loader.exec_module(module)
    result = assert_compiles_like_eager(module.Tanh2(), [torch.randn(3, 5)])
    assert result.verdict is Verdict.PASS
