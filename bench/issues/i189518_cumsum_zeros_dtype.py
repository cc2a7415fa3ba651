# A form of pytorch/pytorch#189518 (fixed by PR #189533, after 2.13.0): Inductor's post-grad
# pattern pointless_cumsum_replacement rewrites cumsum of a constant-filled tensor into an
# arange expression and keeps the filled tensor's dtype, dropping cumsum's own dtype= argument.
# Here the filled tensor is torch.zeros in bfloat16 and cumsum asks for float32: compiled gives
# bfloat16 (values equal). Met by the bfloat16 mix campaign's rewrites family (runs/bf16-mix).
import torch


def fn(x):
    return torch.zeros((4,), dtype=torch.bfloat16).cumsum(0, dtype=torch.float32), x.sum()


def get_inputs():
    return [torch.zeros(4)]
