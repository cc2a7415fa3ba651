# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `np.sqrt(a, out=out, where=m)` in a compiled function: NumPy writes only where `m` holds and
# leaves `out` elsewhere ([2, 0, 4, 0]); torch._numpy's unary ufuncs accept `where` and drop it
# (torch/_numpy/_ufuncs.py, `deco_unary_ufunc`): [2, 3, 4, 5], silently, with any backend (binary
# ufuncs and reductions refuse `where` as not implemented).
import numpy as np
import torch


def fn(a, m):
    out = np.zeros_like(a)
    np.sqrt(a, out=out, where=m)
    return torch.from_numpy(out)


def get_inputs():
    return [np.array([4.0, 9.0, 16.0, 25.0]), np.array([True, False, True, False])]
