# ruff: noqa
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y):
        return torch.matmul(x, y).relu()


model = Model()
inputs = [torch.randn(3, 4), torch.randn(4, 5)]
compiled = torch.compile(model)
