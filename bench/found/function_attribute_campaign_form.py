# A bug torchsmith found (see README.md here): the campaign's reduced form of
# function_attribute_hasattr_unguarded.py (getattr/hasattr on the compiled function's own
# attributes, set by before_call between the calls; no guard, a stale result).
import torch


def fn(x):
    h = x
    h = h * getattr(fn, "gain", 1.0) + getattr(fn, "bias", 0.0)
    if hasattr(fn, "shift"):
        h = h - fn.shift
    return h


def get_inputs():
    return get_calls()[0]


def get_calls():
    g = torch.Generator().manual_seed(8696)
    calls = []
    x = torch.randn(1, 1, generator=g)
    calls.append([x])
    calls.append([x])
    return calls


def before_call(i, target):
    if i % 2 == 1:
        target.shift = 0.5
    elif hasattr(target, "shift"):
        del target.shift
