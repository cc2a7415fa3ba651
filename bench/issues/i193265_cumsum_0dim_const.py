# Written from the facts of https://github.com/pytorch/pytorch/issues/193265 (not copied).
# ruff: noqa
# cumsum over dim 0 of a 0-dim constant tensor built inside the graph: eager returns the
# scalar, Inductor failed at compile time with IndexError: tuple index out of range.
import torch


def f():
    return torch.tensor(5.0).cumsum(0)


print(f())
print(torch.compile(f)())
