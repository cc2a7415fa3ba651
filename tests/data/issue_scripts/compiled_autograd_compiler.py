# ruff: noqa
# torch.compile handed to compiled autograd as the compiler of the backward graph.
import torch
from torch._dynamo import compiled_autograd

enable = getattr(compiled_autograd, "enable", None) or compiled_autograd._enable

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
x = torch.randn(4, 8)
compiled = torch.compile(model)
with enable(torch.compile):
    loss = compiled(x).square().mean()
    loss.backward()
print(model[0].weight.grad.sum())
