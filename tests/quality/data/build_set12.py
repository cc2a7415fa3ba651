# A Dynamo fault buried in a 10-op program: forward builds a set literal, and with
#   --fullgraph --config dynamo.inject_BUILD_SET_unimplemented_TESTING_ONLY=True
# Dynamo cannot trace the BUILD_SET bytecode.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(6, 6)

    def forward(self, x, w):
        a = self.proj(x)
        b = torch.tanh(a) + w
        c = b.softmax(dim=-1)
        dims = {0, 1}
        d = c.sum(dim=tuple(sorted(dims)))
        e = torch.sigmoid(b) * 3.0
        f = e.mean() + d.max()
        g = torch.cos(a)
        h = g * f
        return h, e


def get_inputs():
    return [torch.randn(2, 5, 6), torch.randn(6)]
