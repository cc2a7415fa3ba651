# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# Python's `max(n, 0.5)` of an int size and a float returns the int (7); under dynamic shapes
# (the second call with another size) Dynamo maps builtin max/min to `torch.sym_max` /
# `torch.sym_min` (torch/_dynamo/variables/builtin.py), which always promote to float, "unlike
# builtins.max" (its own docstring): `torch.full((2,), max(n, 0.5))` is float32 [7., 7.] where
# eager gives int64 [7, 7]; `torch.zeros(max(n, 1.0))` raises "argument 'size' must be tuple of
# ints, not float"; with any backend (even "eager").
import torch


def fn(x):
    return torch.full((2,), max(x.shape[0], 0.5))


def get_calls():
    return [[torch.ones(6)], [torch.ones(7)]]
