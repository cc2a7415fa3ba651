# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `x.new_tensor(data, dtype=None)` (the common `dtype=dtype` pass-through with its default):
# Dynamo rewrites it to `torch.tensor(data, dtype=..., device=...)` with
# `kwargs.setdefault("dtype", x.dtype)`, which keeps an explicit None (variables/tensor.py,
# method_new_tensor), so the dtype is inferred from the data: int64 where eager gives x's
# float32 (`device=None` likewise drops x's device), from `backend="eager"` on.
import torch


def fn(x, dtype=None):
    return x.new_tensor([1, 2], dtype=dtype) + x[:2].int()


def get_inputs():
    return [torch.randn(3, generator=torch.Generator().manual_seed(0))]
