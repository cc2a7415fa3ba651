# ruff: noqa
import torch


@torch.compile(fullgraph=True, dynamic=True)
def f(x, n: int, dtype):
    return torch.relu(x).sum(dim=-1, dtype=dtype) * n


print(f(torch.randn(4, 6), 3, torch.float64))
