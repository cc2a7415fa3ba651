# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A `functools.partial` carrying an attribute (`p.scale = 10`; partial objects have a
# `__dict__`, as the docs say): Dynamo's `FunctoolsPartialVariable.call_obj_hasattr`
# (torch/_dynamo/variables/functions.py; its comment says partial uses slots) answers
# `hasattr(p, "scale")` as for a bare partial, False, and `getattr(p, "tag", d)` gives the
# default: the wrong branch (1 for 10), silently, with any backend, fullgraph too.
import functools

import torch


def act(x):
    return x + 1


def fn(x, p):
    y = p(x)
    if hasattr(p, "scale"):
        y = y * p.scale
    return y


def get_inputs():
    p = functools.partial(act)
    p.scale = 10
    return [torch.zeros(2), p]
