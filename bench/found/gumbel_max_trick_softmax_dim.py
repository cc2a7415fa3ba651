# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (2.6.0 has no such pass).
# Inductor's pre-grad `apply_gumbel_max_trick` pass (on by default since PR #171143) rewrites
# argmax(softmax(logits) / q, dim=-1, keepdim=True), q exponential with rate 1, into
# argmax(logits - log(q), dim=-1, keepdim=True). That holds when the softmax normalizes the
# argmax's dim (-1); the pass never looks at the softmax's dim. With softmax over dim 0 the
# compiled program samples from a different distribution: with the same random numbers
# (fallback_random, the same seed) 24 of 64 rows pick another index than eager. Default
# settings otherwise.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, logits):
        probs = F.softmax(logits, dim=0)  # normalized down the columns
        q = torch.empty_like(logits).exponential_(1.0)
        return torch.argmax(probs / q, dim=-1, keepdim=True)


def get_inputs():
    return [torch.randn(64, 8, generator=torch.Generator().manual_seed(0)) * 3]
