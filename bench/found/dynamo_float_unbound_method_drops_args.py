"""`float.__round__(2.567, 1)` called through the type: Dynamo calls `float.__round__(2.567)` and
drops the other arguments (`builtin.py` passes `args[0]` alone): 3 for 2.6 (and
`float.__mul__(2.0, 3.0)` raises inside Dynamo); from `backend="eager"` on."""

import torch


def fn(x):
    return x * float.__round__(2.567, 1)


def get_inputs():
    return [torch.tensor([1.0, 2.0])]
