# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: on CPU, `native_layer_norm` / `native_group_norm` with a bfloat16 (or
# float16) input and float32 weight and bias (autocast keeps norm parameters in float32) return
# float32 mean and rstd from the eager kernel (the mixed-type support of PRs #81851/#81852); the
# reference decompositions Inductor and fake tensors use (`torch/_refs/__init__.py`,
# `native_layer_norm`, `native_group_norm`) cast them to the input's dtype: compiled, the
# statistics come back bfloat16 (META-MISMATCH at decomp; rstd 0.425781 for eager's 0.425033).
# Through `F.layer_norm` the backward of `aot_eager_decomp_partition` then uses the rounded
# statistics (input gradient off fp64 by 5.1, eager 8e-5); Inductor recomputed them here.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.w = nn.Parameter(torch.randn(6, generator=g))
        self.b = nn.Parameter(torch.randn(6, generator=g))

    def forward(self, x):
        return torch.native_layer_norm(x, [6], self.w, self.b, 1e-5)


def get_inputs():
    g = torch.Generator().manual_seed(1)
    return [(torch.randn(4, 6, generator=g) * 3 + 2).bfloat16()]
