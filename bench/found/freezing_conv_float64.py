# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# freezing: a float64 convolution (a double-precision model, e.g. a scientific one, frozen for
# CPU inference) fails to compile: "itensor_view_from_dense expects float/bfloat16/half/int8/fp8
# tensor input Double ... _reorder_convolution_weight". `_is_packable_convolution`
# (mkldnn_fusion.py) checks bfloat16/float16 support but not float64; `_is_packable_linear`
# rejects float64 since the fix of #121175 (PR #121478), which left convolutions out.
# ConvTranspose2d fails the same way. Without freezing it matches eager to 1e-15.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3).double()

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [
        torch.randn(2, 3, 8, 8, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    ]


compile_config = {"inductor.freezing": True}
