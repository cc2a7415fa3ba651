# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: the post-grad `addmm` fusion (fx_passes/post_grad.py, `addmm`, patterns
# `add(mm(a, b), inp)` and `add(inp, mm(a, b))`) rewrites the sum into `aten.addmm(inp, a, b)`.
# Its patterns name no `alpha`, and the pattern matcher keeps only the keywords a pattern names,
# so `torch.add(x @ w, b, alpha=2.0)` (x @ w + 2 b) matches too and the replacement drops alpha:
# compiled returns x @ w + b (off fp64 by 1.2; with `add(b, x @ w, alpha=...)` the scaled matmul
# is lost instead). `is_valid_addmm_fusion` checks shapes, dtypes and devices only. The mirror
# rewrite (addmm -> add(mm), GPU) drops addmm's alpha/beta: #167313 (open); the same matcher
# behaviour broke `batch_aten_sub` (#195442) and `decompose_addmm` (#196577), each its own fix.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, w, b):
        return torch.add(x @ w, b, alpha=2.0)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [
        torch.randn(8, 16, generator=g),
        torch.randn(16, 4, generator=g),
        torch.randn(4, generator=g),
    ]
