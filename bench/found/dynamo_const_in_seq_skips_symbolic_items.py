# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `3 in [t[0], t[1]]` (a Python int searched among tensor items) or `3 in x.shape` under dynamic
# shapes: Dynamo's `iter_contains` (torch/_dynamo/utils.py), given a constant to find, compares
# it only with the constant items and returns False when none matches, never comparing the
# tensor or symbolic ones: False where eager finds 3 (True), silently, with any backend (even
# "eager": Dynamo's own); a branch on it takes the wrong side.
import torch


def fn(x, t):
    if 3 in [t[0], t[1]]:
        return x * 2
    return x


def get_inputs():
    return [torch.ones(3), torch.tensor([3, 5])]
