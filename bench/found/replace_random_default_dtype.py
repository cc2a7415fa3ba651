# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings (fallback_random=False, Inductor's default): `replace_random`
# (fx_passes/replace_random.py) rewrites `torch.rand`/`torch.randn` into Inductor's float32
# random prims and casts only when `dtype=` was given; with `dtype` left out it never resolves
# the default dtype. Under `torch.set_default_dtype(torch.float64)` (scientific code) eager
# returns float64, compiled float32: here a float32 noise matrix meets a float64 input and the
# compiled matmul fails ("expected m1 and m2 to have the same dtype, but got: float != double");
# `torch.rand(8)` alone silently comes back float32 (bfloat16 defaults likewise). #138015 was the
# explicit-dtype form (fixed); `fallback_random=True`, which torchsmith's judge sets by default,
# hides it: this program turns it off.
import torch
import torch.nn as nn

torch.set_default_dtype(torch.float64)  # process-wide: run this program alone


class Model(nn.Module):
    def forward(self, x):
        return torch.randn(4, 4) @ x


def get_inputs():
    return [torch.ones(4, 4)]


compile_config = {"inductor.fallback_random": False}
