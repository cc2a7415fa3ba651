# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (and 2.6.0).
# With `efficient_conv_bn_eval_fx_passes` (the opt-in pass that folds an eval-mode BatchNorm
# into the preceding convolution's weights, a flag mmengine and others turn on), Inductor also
# folds a BatchNorm that follows `nn.Linear`. A Linear maps the LAST dim; BatchNorm1d
# normalizes dim 1. On a 2-d input [N, C] those are the same dim and the fold is right; on a
# 3-d input [N, C, L] they are not: when L (the Linear's out_features) equals C the compiled
# model scales the wrong axis (wrong values, here), otherwise the compile fails ("Attempting to
# broadcast a dimension of length 3 ..."). Default settings and freezing are exact. The same
# mistake, fixed elsewhere: torch.nn.utils.fusion.fuse_linear_bn_eval (#118990, PR #119264),
# torchao's pt2e fusion (pytorch/ao#4116), executorch's NXP backend (PR #17736).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)
        self.bn = nn.BatchNorm1d(3)  # normalizes dim 1 of [N, 3, 3], not the Linear's features
        g = torch.Generator().manual_seed(0)
        self.bn.running_mean.copy_(torch.randn(3, generator=g))
        self.bn.running_var.copy_(torch.rand(3, generator=g) + 0.5)

    def forward(self, x):
        return self.bn(self.lin(x))


def get_inputs():
    return [torch.randn(2, 3, 4, generator=torch.Generator().manual_seed(1))]


compile_config = {"inductor.efficient_conv_bn_eval_fx_passes": True}
