"""Freezing's binary folding folds a per-channel multiply after a convolution into the weight's
dim 0, the output channels of a convolution but the input channels of a transposed one
(`_check_conv_and_broadcast_op` never reads the `transposed` argument): `ConvTranspose2d` then an
eval `BatchNorm2d` (or a per-channel scale) gives wrong values under `freezing=True`."""

import torch
import torch.nn as nn

compile_config = {"inductor.freezing": True}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.ConvTranspose2d(4, 4, 3)
        self.register_buffer("scale", torch.tensor([1.0, 2.0, 3.0, 4.0]).view(1, 4, 1, 1))

    def forward(self, x):
        return self.conv(x) * self.scale


def get_inputs():
    return [torch.randn(2, 4, 5, 5, generator=torch.Generator().manual_seed(0))]
