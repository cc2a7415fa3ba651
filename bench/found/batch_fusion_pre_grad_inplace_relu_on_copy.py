# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# The opt-in pre-grad `batch_relu` fusion (pre_grad_fusion_options) stacks five same-shape
# `F.relu(h, inplace=True)` calls and runs the in-place relu on the stacked copy
# (group_batch_fusion.py, BatchPointwiseOpsPreGradFusion.fuse), so `h` itself is never updated:
# `h + F.relu(h, inplace=True)` is 2*relu(h) in eager and h + relu(h) compiled (negative
# entries off by |h|). `batch_detach` likewise makes `torch.detach(x)` a copy, so an in-place
# write through it no longer reaches `x`. Default settings are exact.
import torch
import torch.nn.functional as F


def fn(a, b, c, d, e):
    hs = [t * 1.0 for t in (a, b, c, d, e)]
    rs = [F.relu(h, inplace=True) for h in hs]
    return [h + r for h, r in zip(hs, rs)]


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(4, 8, generator=g) for _ in range(5)]


compile_config = {"inductor.pre_grad_fusion_options": {"batch_relu": {}}}
