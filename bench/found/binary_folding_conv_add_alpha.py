# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# freezing (binary folding is on under freezing): `binary_folding.py` folds `conv(x) + c` into the
# convolution's bias. Its pattern `CallFunction(binary_op, conv, KeywordArg("other"))` names no
# `alpha`, the matcher keeps only named keywords, and `_create_new_conv_node` rebuilds the bias
# as `bias + c`: `torch.add(conv(x), c, alpha=3.0)` (and `torch.sub(..., alpha=)`) lose alpha:
# off fp64 by 2.2 (eager 3e-7). With `enable_linear_binary_folding` the linear form also drops
# `addmm`'s own alpha/beta. Re-found by the `keywords` mutation campaign (conv2d/conv3d + sub).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.conv = nn.Conv2d(3, 8, 1, bias=False)
        self.register_buffer("c", torch.randn(1, 8, 1, 1, generator=g))

    def forward(self, x):
        return torch.add(self.conv(x), self.c, alpha=3.0)


def get_inputs():
    return [torch.randn(1, 3, 6, 9, generator=torch.Generator().manual_seed(1))]


compile_config = {"inductor.freezing": True}
