"""Indexing with a uint8 ("byte") mask, `x[m]`, runs in eager (deprecated, with a warning;
removing it was backed out) but fails under torch.compile from `backend="eager"` on: the meta
function of `aten.index.Tensor` tests masks for `torch.int8` where it means `torch.uint8`:
"tensors used as indices must be long, int, byte or bool tensors"."""

import torch


def fn(x, m):
    return x[m] * 2


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(6, 3, generator=g), torch.tensor([1, 0, 1, 1, 0, 0], dtype=torch.uint8)]
