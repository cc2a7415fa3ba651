"""Lead (ninth pass): `torch.compile(mode="lite")` with freezing fails on a channels-last
ConvTranspose2d: "AssertionError: expected size 4==4, stride 1==30 at dim=1 ..." at the first
call. Lite mode falls back to ATen for every op and asserts each fallback's strides against its
meta; freezing has already turned the convolution into mkldnn's transposed-convolution op, whose
meta strides (contiguous) disagree with its CPU kernel's (channels-last, like the input). Lite
mode alone, freezing alone (default mode) and a contiguous input are exact. Met 4 times in
`torchsmith fuzz --mode lite --time 10m --seed 33000` (the rewrites family's mkldnn template).
Open: whether maintainers count lite + freezing as a supported combination (lite mode turns the
joint and post-grad passes off; freezing is a separate path it does not mention). The same
campaign's other stride failure, a BatchNorm backward in a training step, is the CPU
`native_batch_norm_backward` fake-strides bug PR #192681 fixes (open).
"""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.ConvTranspose2d(4, 4, 1)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(2, 4, 5, 6, generator=g).contiguous(memory_format=torch.channels_last)]


compile_kwargs = {"mode": "lite"}
compile_config = {"inductor.freezing": True}
