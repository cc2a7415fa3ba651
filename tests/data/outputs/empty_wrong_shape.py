"""Issue 27: a function returns ``torch.Tensor(t.size())`` (uninitialized memory of t's shape).

Its values are undefined, so two eager runs may differ there; what is defined is the shape
``[3, 5]``. Compiled returns a tensor of shape ``[2]`` (the size read as data): meta-mismatch.
"""

import torch


def fn(t):
    return torch.Tensor(t.size())


def get_inputs():
    return [torch.randn(3, 5)]
