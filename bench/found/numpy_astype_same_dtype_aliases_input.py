# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# NumPy code in a compiled function: `a.astype(a.dtype)` is a copy in NumPy (`copy=True` by
# default), so writing into it leaves `a` alone; Dynamo's torch._numpy `astype`
# (torch/_numpy/_ndarray.py) is `tensor.to(dtype)`, the input itself when the dtype already
# matches: the write lands in the caller's array ([99, 2, 3] for [1, 2, 3]), silently, with any
# backend. `a.flatten()`, `np.positive(a)`, `np.conj` of a real array and `np.round` of an int
# array alias alike.
import numpy as np
import torch


def fn(a):
    b = a.astype(np.int64)
    b[0] = 99
    return torch.from_numpy(a)


def get_inputs():
    return [np.array([1, 2, 3], dtype=np.int64)]
