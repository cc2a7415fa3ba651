# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `np.modf(a)` in a compiled function: NumPy truncates toward zero, modf(-1.5) = (-0.5, -1.0);
# torch._numpy's `modf` (torch/_numpy/_ufuncs.py) is `divmod(x, 1)`, floor semantics:
# (0.5, -2.0): both outputs wrong for every negative non-integer, silently, with any backend.
import numpy as np
import torch


def fn(a):
    frac, whole = np.modf(a)
    return torch.from_numpy(frac), torch.from_numpy(whole)


def get_inputs():
    return [np.array([-1.5, 2.25, -0.75])]
