# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `p.keywords["factor"] = 3.0` on a `functools.partial` made in the compiled function, then
# `p(x)`: CPython calls with factor 3.0; Dynamo's `var_getattr("keywords")`
# (torch/_dynamo/variables/functions.py) returns a fresh dict copy, the mutation lands on the
# copy and the call uses 1.0: x * 1 for x * 3, silently, with any backend (fullgraph: a graph
# break instead).
import functools

import torch


def scale(x, factor=1.0):
    return x * factor


def fn(x):
    p = functools.partial(scale, factor=1.0)
    p.keywords["factor"] = 3.0
    return p(x)


def get_inputs():
    return [torch.ones(2)]
