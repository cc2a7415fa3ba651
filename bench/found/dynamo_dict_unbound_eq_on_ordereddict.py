"""`dict.__eq__(a, b)` for two OrderedDicts compares them as dicts (order ignored): True in
CPython. Dynamo sends the call to the first argument's own method, OrderedDict's
order-sensitive `__eq__`: False, and the branch flips (`dict.copy(od)` alike returns an
OrderedDict); from `backend="eager"` on."""

from collections import OrderedDict

import torch


def fn(x):
    a = OrderedDict(a=1, b=2)
    b = OrderedDict(b=2, a=1)
    if dict.__eq__(a, b):
        return x + 1
    return x - 1


def get_inputs():
    return [torch.zeros(2)]
