# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (and 2.6.0).
# Default settings: the post-grad weight-only-int8 pattern rewrites F.linear(x, w_int8.to(x.dtype))
# * scales (per-channel scales: the form it is written for) into aten._weight_int8pack_mm, and
# that CPU kernel reads out of bounds when in_features is not a multiple of 16: the compiled
# model dies with SIGSEGV (in_features 4, 8, 24 die; 16, 32 are exact). The pattern checks
# dtypes and devices, not the sizes the kernel needs; the kernel checks neither (eager
# torch._weight_int8pack_mm(x, w, s) with K = 8 segfaults too). Eager's F.linear is fine.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.register_buffer("w", torch.randint(-128, 127, (4, 8), generator=g, dtype=torch.int8))
        self.register_buffer("scales", (torch.rand(4, generator=g) * 0.05).to(torch.bfloat16))

    def forward(self, x):
        return F.linear(x, self.w.to(x.dtype)) * self.scales  # in_features = 8


def get_inputs():
    return [torch.randn(2, 8, 8, generator=torch.Generator().manual_seed(1)).to(torch.bfloat16)]
