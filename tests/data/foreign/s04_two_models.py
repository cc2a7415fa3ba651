# ruff: noqa
import torch
import torch.nn as nn


class Unused(nn.Module):
    def forward(self, x):
        return x * 2


class Other(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, n)

    def forward(self, x):
        return self.lin(x).softmax(-1)


class Tested(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=0).flip(0)


scratch = Other(8)  # built for comparison but never run
m = Tested()
x = torch.randn(5, 8)
y = m(x)
cm = torch.compile(m)
print(cm(x) - y)
