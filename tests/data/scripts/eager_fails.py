# ruff: noqa
# Invalid: the script fails in eager before anything is compiled.
import torch


def f(a, b):
    return torch.mm(a, b)


a = torch.randn(2, 10)
print(torch.compile(f)(a, a))
