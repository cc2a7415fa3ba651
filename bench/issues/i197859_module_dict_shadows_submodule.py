# A form of pytorch/pytorch#197859 (open): an instance attribute set with object.__setattr__
# shadows a registered submodule of the same name (Python finds it in the instance dict before
# nn.Module.__getattr__ looks in _modules), so eager uses the new submodule; a module compiled
# before the change keeps calling the old one: no guard sees the shadowing entry, and the
# compiled result is silently stale. A plain `m.proj = new` recompiles correctly. Met by the
# dynamic-shapes mix campaign's python family (runs/dynamic-mix), which swaps a submodule
# between calls.
import torch
import torch.nn as nn


def _replacement(old):
    new = nn.Linear(old.in_features, old.out_features, bias=False)
    with torch.no_grad():
        new.weight.fill_(0.1)
    return new


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 2, bias=False)

    def forward(self, x):
        return self.proj(x) + 1


def get_calls():
    g = torch.Generator().manual_seed(0)
    return [[torch.randn(3, 4, generator=g)], [torch.randn(3, 4, generator=g)]]


def get_inputs():
    return get_calls()[0]


def before_call(i, target):
    if i == 1:
        object.__setattr__(target, "proj", _replacement(target.proj))
