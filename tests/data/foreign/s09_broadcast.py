# ruff: noqa
import torch
import torch.nn as nn

device = torch.device("cuda:0")


class AddMul(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(1, 5, device=device))

    def forward(self, x, y):
        return (x + y) * self.scale


x = torch.randn(3, 1, device=device)
y = torch.randn(1, 5, device=device)
mod = AddMul().to(device)
fn = torch.compile(mod, fullgraph=True)
out = fn(x, y)
ref = mod(x, y)
assert torch.allclose(out, ref)
