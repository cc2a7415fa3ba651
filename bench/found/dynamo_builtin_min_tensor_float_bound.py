# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# Python's builtin `min(t, 5.0)` / `max(t, u)` on one-element tensors compares with `bool(b < a)`
# and returns one of its arguments unchanged. Dynamo rewrites the call to `torch.clamp` /
# `torch.minimum` / `torch.maximum` (torch/_dynamo/variables/builtin.py,
# `_call_min_max_binary`), a new tensor that type-promotes and broadcasts: an int64 `t` comes
# back float32 (`min(t, 5.0)`), a 0-d and a [1] tensor give shape [1] where eager gives the 0-d
# one, a NaN operand propagates where eager returns the other argument, with any backend (even
# "eager": Dynamo's own).
import torch


def fn(t, u, v):
    return min(t, 5.0), max(u, v), max(3.0, v)


def get_inputs():
    return [torch.tensor([3]), torch.tensor(3.0), torch.tensor([float("nan")])]
