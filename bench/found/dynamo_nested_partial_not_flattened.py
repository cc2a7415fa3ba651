# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `functools.partial(functools.partial(f, 1, c=3), 2)`: CPython flattens a partial of a partial,
# `p.func is f`, `p.args == (1, 2)`, `p.keywords == {"c": 3}`; Dynamo's partial construction
# (torch/_dynamo/variables/user_defined.py) wraps the inner partial as it is: `p.func` is the
# inner partial and `p.args == (2,)`: a branch on them takes the wrong side (x - 1 for x + 1),
# silently, with any backend, fullgraph too (calling `p` still gives the right value).
import functools

import torch


def f(a, b, c=0):
    return a + b + c


def fn(x):
    p = functools.partial(functools.partial(f, 1, c=3), 2)
    if p.func is f and len(p.args) == 2:
        return x + 1
    return x - 1


def get_inputs():
    return [torch.zeros(2)]
