# ruff: noqa
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, mask=None, scale=2.0):
        if mask is not None:
            x = x.masked_fill(mask, 0.0)
        return x * scale


x = torch.randn(4, 4)
mask = x > 1
m = Model()
out = m(x, mask=mask)
ep = torch.export.export(m, (x, mask))
print(ep)
