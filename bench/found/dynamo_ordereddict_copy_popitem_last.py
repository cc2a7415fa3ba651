"""`OrderedDict.copy()` (and `od | d`) inside a compiled function gives Dynamo's plain dict
variable, whose `popitem` ignores its keyword arguments: `od.copy().popitem(last=False)` pops the
last item ('c', 3) instead of the first ('a', 1); a copied OrderedDict subclass loses its class
(`isinstance(p.copy(), Params)` False); from `backend="eager"` on."""

from collections import OrderedDict

import torch


def fn(x):
    od = OrderedDict(a=1, b=2, c=3).copy()
    _, v = od.popitem(last=False)
    return x * v


def get_inputs():
    return [torch.ones(2)]
