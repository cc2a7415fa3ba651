# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `np.round(a, -1)` of an integer array in a compiled function: NumPy rounds to tens
# ([-10, 10, 20, 40] for [-7, 14, 25, 36], half to even); torch._numpy's `round`
# (torch/_numpy/_funcs_impl.py) returns an integer array unchanged whatever `decimals` is,
# silently, with any backend.
import numpy as np
import torch


def fn(a):
    return torch.from_numpy(np.round(a, -1))


def get_inputs():
    return [np.array([-7, 14, 25, 36])]
