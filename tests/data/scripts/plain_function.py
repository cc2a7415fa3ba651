# ruff: noqa
# The most common shape of a pasted repro: a function, compiled, called, printed.
import torch


def f(x, y):
    return torch.relu(x) * y + 1


x = torch.randn(8, 8)
y = torch.randn(8)
out = torch.compile(f)(x, y)
print(out)
