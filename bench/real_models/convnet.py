"""A small ConvNet: conv, batch norm, ReLU, max pool (twice), global average pool, linear."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
        )  # fmt: skip
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        return self.head(self.features(x).mean(dim=(2, 3)))


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(4, 3, 16, 16, generator=g)]
