"""Inductor's joint-graph constant folding of uniform values (`constant_fold_uniform_value`)
evaluates every folded `full` as a shape-[1] tensor, so a 0-d constant loses the rule that a 0-d
tensor does not promote a dimensioned one: `full((4,), 0.1) == full((), 0.1, dtype=float64)`
compares in float32 in eager (True) and in float64 once folded (False): `where` picks the
other branch. `joint_graph_constant_folding=False` matches eager."""

import torch


def fn(inp):
    a = torch.full((4,), 0.1)
    b = torch.full((), 0.1, dtype=torch.float64)
    return torch.where(a == b, inp, -inp)


def get_inputs():
    return [torch.ones(4)]
