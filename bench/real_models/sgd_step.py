"""A training step compiled whole: forward, cross-entropy loss, backward and ``SGD.step()``
(momentum, weight decay) on a small MLP; returns the loss and the updated parameters."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)

    def forward(self, x, y):
        with torch.enable_grad():  # a check runs forward under no_grad: the step needs autograd
            self.opt.zero_grad()
            loss = nn.functional.cross_entropy(self.net(x), y)
            loss.backward()
            self.opt.step()
        return loss.detach(), [p.detach().clone() for p in self.net.parameters()]


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(8, 16, generator=g), torch.randint(0, 4, (8,), generator=g)]
