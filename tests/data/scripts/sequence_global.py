# ruff: noqa
# Called twice with a global changed in between, and once more with a new shape.
import torch

SCALE = 2.0


def f(x):
    return torch.relu(x) * SCALE


cf = torch.compile(f)
print(cf(torch.randn(4)))
SCALE = 3.0
print(cf(torch.randn(4)))
print(cf(torch.randn(7)))
