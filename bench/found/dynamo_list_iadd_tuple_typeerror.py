"""`list.__iadd__` called explicitly takes any iterable (`[x].__iadd__((a, b))`, as `+=` does), and
`tuple.__add__(torch.Size)` is a tuple: Dynamo's list/tuple `__add__`/`__iadd__` require the
other operand to be the very same kind of list variable and raise TypeError otherwise, so a
valid program takes its `except TypeError` branch under torch.compile (or fails with
`fullgraph=True`)."""

import torch


def fn(x):
    out = [x]
    try:
        out.__iadd__((x * 2, x + 1))
    except TypeError:
        out = [x - 100]
    return torch.stack(out).sum(0)


def get_inputs():
    return [torch.randn(3, generator=torch.Generator().manual_seed(0))]
