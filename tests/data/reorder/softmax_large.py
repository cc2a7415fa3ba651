# Softmax and log-softmax over thousands of logits, plus a cross-entropy style reduction.
import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def forward(self, logits):
        p = F.softmax(logits * 3.0, dim=-1)
        lp = F.log_softmax(logits, dim=-1)
        return p, -(p * lp).sum(dim=-1)


def get_inputs():
    return [torch.randn(16, 8192)]
