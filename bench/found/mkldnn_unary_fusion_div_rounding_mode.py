# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# freezing: mkldnn_fusion.py's unary-fusion patterns (`_hardsigmoid_fusion`, `_hardswish_fusion`,
# `_silu_fusion`, `_gelu_fusion_*`) are written with op packets (`aten.div`, `aten.add`), which
# match every overload: `div.Tensor_mode` with `rounding_mode="floor"` (or "trunc") and `add`
# with `alpha` are fused as plain hardsigmoid/silu/gelu into the convolution. Here a floored
# hardsigmoid `div(clamp(y + 3, 0, 6), 6, rounding_mode="floor")` (0 or 1) comes out the smooth
# one: off fp64 by 0.99, eager exact.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)

    def forward(self, x):
        y = self.conv(x)
        return torch.div(torch.add(y, 3).clamp_min(0).clamp_max(6), 6, rounding_mode="floor")


def get_inputs():
    return [torch.randn(2, 3, 10, 10, generator=torch.Generator().manual_seed(0)) * 5]


compile_config = {"inductor.freezing": True}
