# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `enumerate(xs, start=True)`: CPython converts `start` with `__index__`, the first index is the
# int 1; Dynamo's `enumerate` polyfill (torch/_dynamo/polyfills/builtins.py) keeps the bool:
# the first index is True, so `f"row{i}"` gives "rowTrue" for "row1"; `itertools.count(True)`
# alike; with any backend (even "eager").
import torch


def fn(x, flag):
    names = [f"row{i}" for i, _ in enumerate(["a", "b"], start=flag)]
    return x + 1, names


def get_inputs():
    return [torch.ones(2), True]
