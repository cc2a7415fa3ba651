# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `x in [x, y]` with tensors: CPython's list `__contains__` tests identity first
# (PyObject_RichCompareBool) and returns a bool: True. Dynamo's `iter_contains`
# (torch/_dynamo/utils.py) ORs the elementwise `item == x` tensors without the identity test:
# a tensor [True, True, True] (a wrong type); `x in (x,)` with a NaN element is tensor([False]);
# `[x, y].count(x)` is tensor([2]) for 2; with any backend (even "eager": Dynamo's own).
import torch


def fn(x, y, z):
    return x in [x, y], z in (z,), [z, z].count(z)


def get_inputs():
    return [torch.ones(3), torch.zeros(3), torch.tensor([float("nan")])]
