# A Python int through math.cos(s) ** 2 under dynamic=True (Dynamo crash on torch 2.13:
# pow of a symbolic float fails in fake-tensor propagation), written from the public
# description; buried in a helper, unused arguments and settings the failure does not need.
import math

import torch

SCALE = 3.0


def helper(v):
    return v.abs() + 1


def fn(x, y, s):
    a = helper(x) * SCALE
    b = y.t().sum(1)
    c = x * math.cos(s) ** 2
    d = a + b
    return c, d


def get_inputs():
    torch.manual_seed(0)
    x = torch.randn(8, 16, dtype=torch.float64)
    y = torch.randn(16, 8).t()
    return [x, y, 2]


compile_kwargs = {"dynamic": True, "fullgraph": False, "mode": "default"}
compile_config = {"inductor.freezing": False}
