# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `min(seq)` of an empty sequence inside `try/except ValueError`: CPython raises ValueError
# and the handler runs; Dynamo's `_call_min_max_seq` (torch/_dynamo/variables/builtin.py)
# asserts the sequence is non-empty: an AssertionError no user `except` sees (a crash, with any
# backend). `int(float("inf"))`, `",".join([1])` and `list(range(0, 5, 0))` are alike
# uncatchable (InternalTorchDynamoError), while an unused `range(0, 5, 0)` raises nothing.
import torch


def fn(x, sizes):
    try:
        smallest = min(sizes)
    except ValueError:
        smallest = 1
    return x * smallest


def get_inputs():
    return [torch.ones(2), []]
