# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (2.6.0 has no such pass).
# Inductor's opt-in pre-grad `einsum_to_pointwise_pass` rewrites a two-operand einsum whose
# equation looks like "bcd,bcde->bce" (followed by an add) as
# (x.unsqueeze(-1) * w).sum(-2). Its equation check compares letter positions only, so
# "bcd,bcdd->bcd" passes it, although its repeated `d` means a diagonal and no sum:
# out[b, c, d] = x[b, c, d] * w[b, c, d, d]. The compiled program sums over d instead: wrong
# values. Default settings (no fusion options) are exact. Met by hand, reading the split_cat.py
# passes the rewrites family had no template for; then by the family's template.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, w):
        return torch.einsum("bcd,bcdd->bcd", x, w) + 1


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(2, 3, 4, generator=g), torch.randn(2, 3, 4, 4, generator=g)]


compile_config = {"inductor.pre_grad_fusion_options": {"einsum_to_pointwise_pass": {}}}
