# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `list.count` (also `tuple.count`, `deque.count`, `operator.countOf`) over a list holding
# tensors returns a 0-d int64 tensor under Dynamo instead of a Python int: the polyfill sums
# `it is b or it == b` without `bool()` (polyfills/operator.py, countOf), so a 0-d `int8 * n` promotes
# to int64: eager -56 (int8 wraps), compiled 200 (int64), from `backend="eager"` on.
import torch


def fn(a, b, s):
    n = [a, b, a].count(a)
    return s * n


def get_inputs():
    return [torch.tensor(1.0), torch.tensor(2.0), torch.tensor(100, dtype=torch.int8)]
