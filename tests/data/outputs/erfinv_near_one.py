"""Issue 27: ``erfinv`` of values within 1e-5 of +-1.

Compiled ``erfinv`` is about 100 ulps from float64 there (eager within half an ulp), but erfinv
is ill-conditioned near +-1: moving the input by 2 eps moves the output by some 1e5 ulps. The
ulp rule makes it an ``imprecise`` candidate; the probe's perturbed inputs explain it (a
backward-stable result), so the verdict is ``pass``.
"""

import torch


def fn(x):
    return torch.erfinv(x)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    side = torch.where(torch.rand(64, generator=g) < 0.5, -1.0, 1.0)
    return [side * (1 - torch.rand(64, generator=g) * 1e-5)]
