# pytorch/pytorch PR #186281 (closed; its fix is not in 2.13.0): Inductor's uniform-value
# constant folder (joint_graph.py, `_add_peephole_patterns`) rewrites `x * 0` with a literal
# integer 0 to zeros whatever `x` holds, so NaN and inf inputs (NaN * 0 = NaN) come out 0.
# `x * 0.0` keeps the multiply. Met by torchsmith's cpp-tuning campaign (tenth pass, as
# `masked_fill(..., nan) * 0`), on default settings.
import torch


def fn(x):
    return x * 0


def get_inputs():
    return [torch.tensor([float("nan"), 1.0, float("inf"), -2.0])]
