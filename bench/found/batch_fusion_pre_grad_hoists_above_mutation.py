# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# The opt-in pre-grad batch fusions (`batch_tanh`, `batch_linear`, `batch_linear_lhs`, ... in
# pre_grad_fusion_options) replace five or more same-shape calls with one op on their stack,
# inserted before the group's FIRST member (group_batch_fusion.py, `inserting_before(subset[0])`).
# The pre-grad graph is not functional: a member called after an in-place update of its input is
# hoisted above that update and reads the old value (the second output off fp64 by 0.3, eager
# by 3e-08).
# Default settings are exact; only the inductor backend runs these passes.
import torch


def fn(x):
    outs = []
    for _ in range(5):
        outs.append(torch.tanh(x))
        x.mul_(0.5)
    return outs


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(4, 8, generator=g)]


compile_config = {"inductor.pre_grad_fusion_options": {"batch_tanh": {}}}
