# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `torch.round(x, decimals=-3)`: the decomposition (inductor decomposition.py `round_dec`, the
# same formula in torch/_refs) computes `round(x * 10.0**d) * (1 / 10.0**d)`; for d < 0 the factor
# 0.001 is inexact in float32 (1.0000000475e-3), so exact ties move past the tie: 48500 -> 49000,
# 12500 -> 13000, 6500 -> 7000 where eager (which divides by 1000) and fp64 give 48000, 12000,
# 6000 (half to even). Off fp64 by 1000, eager by 0; from aot_eager_decomp_partition on.
import torch


def fn(x):
    return torch.round(x, decimals=-3)


def get_inputs():
    return [torch.tensor([48500.0, 12500.0, 6500.0, -48500.0, 1234.0])]
