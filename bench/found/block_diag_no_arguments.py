# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `torch.block_diag()` with no tensors: eager returns an empty (1, 0) tensor; the reference
# implementation, which is the op's fake-tensor meta, reads `tensors_2d[0].device`
# (torch/_refs/__init__.py, `_block_diag_iterable`): IndexError "list index out of range", from
# `backend="eager"` on (a program building the blocks from a list that may be empty).
import torch


def fn(x):
    blocks = [b for b in (x,) if b.shape[0] > 8]
    return torch.block_diag(*blocks).sum() + x


def get_inputs():
    return [torch.ones(3)]
