# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `x.shape[0] in range(1, 9)`: on the second call with another size (automatic dynamic) the size
# is a SymInt and `RangeVariable`'s containment calls `as_python_constant()` on it
# (torch/_dynamo/variables/lists.py, `range_count`): "SymNodeVariable() is not a constant"
# (InternalTorchDynamoError, a crash, no graph break).
import torch


def fn(x):
    return x * (x.shape[0] in range(1, 9))


def get_calls():
    return [[torch.ones(4)], [torch.ones(5)]]
