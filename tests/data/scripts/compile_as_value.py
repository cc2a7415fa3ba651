# ruff: noqa
# torch.compile used as a value: a partial with the backend bound, and a decorator factory.
import functools

import torch

compile_inductor = functools.partial(torch.compile, backend="inductor")


def f(x):
    return torch.relu(x) * 2


@torch.compile(fullgraph=True)
def g(x):
    return torch.relu(x - 0.5).sum(dim=-1)


cf = compile_inductor(f)
x = torch.randn(6, 5)
print(cf(x).sum(), g(x))
