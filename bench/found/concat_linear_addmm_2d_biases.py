# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# freezing + cpp.enable_concat_linear: the same concat-linear rewrite as
# concat_linear_addmm_alpha_beta.py, with biases that are all 2-d `(1, N)` rows. The check
# (`check_concat_weights`) asks only that the biases agree on `shape[:-1]`, the fix of #121231
# for mixed 1-d/2-d biases; the replacement then concatenates them along dim 0 (`torch.cat((b1,
# b2, b3))`, a [3, N] tensor) where they needed dim -1, and compiling fails: "Attempting to
# broadcast a dimension of length 8 at -1 ... [3, 8] ... broadcastable to [4, 24]".
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.w = nn.ParameterList([nn.Parameter(torch.randn(16, 8, generator=g)) for _ in range(3)])
        self.b = nn.ParameterList([nn.Parameter(torch.randn(1, 8, generator=g)) for _ in range(3)])

    def forward(self, x):
        return tuple(torch.addmm(b, x, w) for w, b in zip(self.w, self.b))


def get_inputs():
    return [torch.randn(4, 16, generator=torch.Generator().manual_seed(1))]


compile_config = {"inductor.freezing": True, "inductor.cpp.enable_concat_linear": True}
