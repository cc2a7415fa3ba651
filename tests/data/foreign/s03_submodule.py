# ruff: noqa
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        return F.gelu(self.fc(x)) + x


class Net(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        for b in self.blocks:
            x = b(x)
        return self.norm(x)


DIM = 32
net = Net(DIM, depth=2).cuda()
opt_net = torch.compile(net, backend="inductor")
x = torch.randn(4, 10, DIM, device="cuda")
ref = net(x)
res = opt_net(x)
torch.testing.assert_close(ref, res)
