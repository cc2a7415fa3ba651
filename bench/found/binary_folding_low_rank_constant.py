# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# freezing: binary folding (`binary_folding.py`, `_op_not_broadcasting_with_conv`) folds
# `conv(x) * c` into the weights when `c.shape[1] == C_out`, for any rank of `c`. A `(1, 4)`
# constant on a Conv2d output `[N, 4, H, W=4]` broadcasts against the *width* in eager, but is
# folded as a per-output-channel scale: off fp64 by 4.0 (eager 2e-7); `add` likewise; Conv3d
# with a `(1, C_out, 1)` constant too.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.conv = nn.Conv2d(3, 4, 3)
        self.register_buffer("scale", torch.randn(1, 4, generator=g))  # along the output width

    def forward(self, x):
        return self.conv(x) * self.scale


def get_inputs():
    return [torch.randn(2, 3, 6, 6, generator=torch.Generator().manual_seed(1))]


compile_config = {"inductor.freezing": True}
