# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: `torch.nan_to_num(x_float32, nan=v)` (or `posinf=`/`neginf=`) with a value
# beyond float32's range (a float64 limit in dtype-generic code): eager casts it (nan -> inf)
# and aot_eager agrees; Inductor's uniform-value constant folding (joint_graph.py,
# `constant_fold_uniform_value`) converts the `where` decomposition's scalar with a checked
# float32 conversion and compiling fails: "RuntimeError: value cannot be converted to type float
# without overflow".
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.nan_to_num(x, nan=0.0, posinf=torch.finfo(torch.float64).max)


def get_inputs():
    return [torch.tensor([float("nan"), float("inf"), -float("inf"), 1.0])]
