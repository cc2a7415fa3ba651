# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: joint_graph.py's `mul_softmax_pattern` / `div_softmax_pattern` rewrite
# `scale(x) - scale(x).amax(dim, keepdim=True)` as `scale(x - x.amax(...))` for softmax
# stability. The `sub` in the pattern names no `alpha` and the matcher keeps only named keywords,
# so `torch.sub(s, s.amax(-1, keepdim=True), alpha=2.0)` (s - 2 max) becomes s - max: off fp64 by
# 1.7 (eager 1.8e-7); with `x / 2` instead of `x * 0.5`, by 6.8.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        s = x * 0.5
        return torch.sub(s, s.amax(-1, keepdim=True), alpha=2.0)


def get_inputs():
    return [torch.randn(4, 16, generator=torch.Generator().manual_seed(0))]
