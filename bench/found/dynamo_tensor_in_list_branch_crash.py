# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `if x in [x, y]:` with tensors of several elements: eager's list `__contains__` finds `x` by
# identity and takes the branch; Dynamo's `iter_contains` (torch/_dynamo/utils.py) compares
# elementwise and the branch calls `bool()` on a 3-element tensor: "Boolean value of Tensor
# with more than one value is ambiguous" (a crash, with any backend).
import torch


def fn(x, y):
    if x in [x, y]:
        return x + 1
    return x - 1


def get_inputs():
    return [torch.ones(3), torch.zeros(3)]
