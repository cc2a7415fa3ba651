"""A ReLU MLP: the target of Inductor's planted relu fault
(``inductor.cpp.inject_relu_bug_TESTING_ONLY=accuracy``)."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 8), nn.ReLU())

    def forward(self, x):
        return self.net(x)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(4, 16, generator=g)]
