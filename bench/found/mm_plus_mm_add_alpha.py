# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# max_autotune: post_grad.py's `mm_plus_mm` lowering pattern turns `add(mm(a, b), mm(c, d))` into
# one `_mm_plus_mm` kernel; the pattern names no `alpha` and the matcher keeps only named
# keywords, so `torch.add(a @ b, c @ d, alpha=3.0)` computes a @ b + c @ d: off fp64 by 41 (eager
# 1e-5). Without max_autotune the same program meets the post-grad `addmm` fusion's alpha drop
# (addmm_fusion_drops_add_alpha.py), another pattern in other code.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b, c, d):
        return torch.add(a @ b, c @ d, alpha=3.0)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(32, 32, generator=g) for _ in range(4)]


compile_config = {"inductor.max_autotune": True, "inductor.max_autotune_gemm_backends": "ATEN"}
