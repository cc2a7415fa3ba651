# pytorch/pytorch#198095's mechanism (aliased inputs, one mutated in place): x and x[1:]
# passed together, x[1:] doubled in place, x returned: compiled returns the wrong values.
# torchsmith's reduced form from the 2-hour default-mix leg.
import torch


def _combine(*ts, **kw):
    out = ts[0]
    return out


def fn(x, y1):
    h = x
    h = _combine(*[h] * 2, gain=0.25)
    y1.mul_(2.0)
    return h


def get_inputs():
    return get_calls()[0]


def get_calls():
    g = torch.Generator().manual_seed(9691)
    calls = []
    x = torch.randn(4, 4, generator=g)
    calls.append([x, x[1:]])
    calls.append([x, torch.randn(3, 4, generator=g)])
    return calls
