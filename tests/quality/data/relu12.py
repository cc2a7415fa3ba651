# A 12-op program with one relu buried in the middle: with
#   --config inductor.cpp.inject_relu_bug_TESTING_ONLY=accuracy
# Inductor adds 1 to every relu output, and the outputs downstream of it go wrong.
import math

import torch
import torch.nn as nn


def scaled_tanh(t, k=0.5):
    return torch.tanh(t * k)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 8)
        self.norm = nn.LayerNorm(8)
        self.unused = nn.Conv2d(3, 6, kernel_size=3)

    def forward(self, x, y):
        a = self.fc1(x)
        b = torch.sigmoid(y) * 2.0
        c = a.mean(dim=1, keepdim=True)
        d = a - c
        e = torch.relu(d)
        f = self.fc2(e)
        g = scaled_tanh(f)
        h = torch.cumsum(b, dim=1)
        i = self.norm(g)
        j = i * math.sqrt(2.0) + h.sum()
        k = b.exp()
        m = k.max(dim=0).values
        return j, m, h


def get_inputs():
    g = torch.Generator()
    x = torch.randn(4, 16, generator=g.manual_seed(1))
    y = torch.randn(4, 8, generator=g.manual_seed(2))
    return [x, y]


def get_init_inputs():
    return []
