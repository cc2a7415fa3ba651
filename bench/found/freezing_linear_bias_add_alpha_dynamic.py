# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# freezing (dynamic batch; automatic dynamic shapes reach it on the second batch size too):
# mkldnn_fusion.py's `linear_bias_pattern` folds `add(linear(x), b)` into the packed linear's
# bias, and its check `is_linear_add_bias` never looks at `add`'s `alpha` (the pattern matcher
# drops keyword arguments its pattern does not name; `_is_valid_binary` in the same file does
# check alpha). So `torch.add(lin(x), b, alpha=3.0)` adds `b` once: off fp64 by 3.5 (eager 3e-7).
# Static shapes take `_mkl_linear`, which the pattern does not match.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.lin = nn.Linear(16, 8, bias=False)
        self.b = nn.Parameter(torch.randn(8, generator=g))

    def forward(self, x):
        return torch.add(self.lin(x), self.b, alpha=3.0)


def get_inputs():
    return [torch.randn(5, 16, generator=torch.Generator().manual_seed(1))]


compile_kwargs = {"dynamic": True}
compile_config = {"inductor.freezing": True}
