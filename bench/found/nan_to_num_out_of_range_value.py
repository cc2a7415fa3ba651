# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: `torch.nan_to_num(x_float32, nan=v)` (or `posinf=`/`neginf=`) with a value
# beyond float32's range (a float64 limit in dtype-generic code): eager casts it (nan -> inf)
# and aot_eager agrees; from the decomposition rung on (`aot_eager_decomp_partition` and
# Inductor: the reference decomposition's `where` with the scalar, whose float32 conversion is
# checked) compiling fails: "RuntimeError: value cannot be converted to type float without
# overflow". (A helper first blamed Inductor's uniform-value constant folding; the ladder shows
# the decomposition rung failing already.)
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.nan_to_num(x, nan=0.0, posinf=torch.finfo(torch.float64).max)


def get_inputs():
    return [torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0])]
