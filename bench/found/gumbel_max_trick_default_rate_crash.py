# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (2.6.0 has no such pass).
# Inductor's pre-grad `apply_gumbel_max_trick` pass (on by default since PR #171143) rewrites
# the sampling idiom argmax(softmax(logits) / q, dim=-1, keepdim=True), with
# q = torch.empty_like(logits).exponential_(1.0), into argmax(logits - log(q)). It reads the
# rate with `empty_node, rate = rand_exp.args`, so the same idiom written with exponential_'s
# default rate, `q.exponential_()` (or `exponential_(lambd=1.0)`), has one positional argument
# and the compile raises `ValueError: not enough values to unpack (expected 2, got 1)`.
# `exponential_(1.0)` compiles. Default settings; eager runs.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, logits):
        probs = F.softmax(logits, dim=-1)
        q = torch.empty_like(logits).exponential_()  # rate 1, the default
        return torch.argmax(probs / q, dim=-1, keepdim=True)


def get_inputs():
    return [torch.randn(4, 8, generator=torch.Generator().manual_seed(0))]
