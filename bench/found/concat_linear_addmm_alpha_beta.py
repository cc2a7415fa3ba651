# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# freezing + cpp.enable_concat_linear (the opt-in CPU flag; on other devices freezing alone
# enables the rewrite, read, not run): freezing_patterns.py's `addmm_fuse_pattern_second`
# concatenates three `addmm(b_i, x, w_i)` that share `x` into one `addmm(cat(b), x, cat(w))`.
# The pattern is traced without keywords and the matcher ignores keywords it does not name, so
# `addmm(..., alpha=2.0)` or `beta=3.0` matches and the replacement drops them: off fp64 by 11
# (eager 4e-6). `check_concat_weights` checks shapes only.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.w = nn.ParameterList([nn.Parameter(torch.randn(16, 8, generator=g)) for _ in range(3)])
        self.b = nn.ParameterList([nn.Parameter(torch.randn(8, generator=g)) for _ in range(3)])

    def forward(self, x):
        return tuple(torch.addmm(b, x, w, alpha=2.0) for w, b in zip(self.w, self.b))


def get_inputs():
    return [torch.randn(4, 16, generator=torch.Generator().manual_seed(1))]


compile_config = {"inductor.freezing": True, "inductor.cpp.enable_concat_linear": True}
