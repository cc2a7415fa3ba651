# Written from the facts of https://github.com/pytorch/pytorch/issues/128161 (not copied).
# ruff: noqa
# torch.full filled with a symbolic boolean (n >= 1024, n a Python int compiled with
# dynamic=True): Inductor's lowering of full failed.
import torch


def fn(n):
    flag = torch.full((1,), n >= 1024, dtype=torch.bool)
    return flag + 1


opt_fn = torch.compile(fn, backend="inductor", dynamic=True)
print(fn(1024), opt_fn(1024))
print(fn(3), opt_fn(3))
