# Written from the facts of https://github.com/pytorch/pytorch/issues/191308 (not copied).
# ruff: noqa
# matmul of two int8 batched tensors: eager returns int8, the compiled CPU graph
# returned int64 (values equal, dtype wrong).
import torch


def mm(a, b):
    return torch.matmul(a, b)


a = torch.ones((1, 1, 2), dtype=torch.int8)
b = torch.ones((1, 2, 2), dtype=torch.int8)
eager = mm(a, b)
compiled = torch.compile(mm, backend="inductor", fullgraph=True, dynamic=False)(a, b)
print("torch:", torch.__version__)
print("eager:", eager, eager.dtype)
print("compiled:", compiled, compiled.dtype)
assert compiled.dtype == eager.dtype
