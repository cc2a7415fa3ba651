"""Live objects as programs (program/live.py): what can reach a worker, without running one."""

import pytest
import torch

from torchsmith.program.format import entry_of
from torchsmith.program.live import live_program


class Top(torch.nn.Module):
    def forward(self, x):
        return x + 1


def top_fn(x):
    return x * 2


def test_a_module_and_a_function_become_canonical_programs(tmp_path):
    import ast

    mod = live_program(Top(), [torch.ones(2)], tmp_path / "a")
    fn = live_program(top_fn, (torch.ones(2),), tmp_path / "b", kwargs={"k": 1})
    assert (mod.model, fn.model) == ("Model", "fn")
    assert entry_of(ast.parse(mod.source), "m") == "Model"
    assert entry_of(ast.parse(fn.source), "f") == "fn"
    saved = torch.load(tmp_path / "b" / "top_fn.pt", weights_only=False)
    assert saved["kwargs"] == {"k": 1} and saved["target"] is top_fn
    assert __name__ in mod.source  # this module, to import (or load from its file) first


def test_objects_a_worker_cannot_load_are_refused_before_any_run(tmp_path):
    class Local(torch.nn.Module):
        def forward(self, x):
            return x

    with pytest.raises(TypeError, match="defined inside a function"):
        live_program(Local(), [torch.ones(1)], tmp_path)
    with pytest.raises(TypeError, match="defined inside a function"):
        live_program(lambda x: x, [torch.ones(1)], tmp_path)
    with pytest.raises(TypeError, match="inputs must be a list or tuple"):
        live_program(top_fn, torch.ones(1), tmp_path)
