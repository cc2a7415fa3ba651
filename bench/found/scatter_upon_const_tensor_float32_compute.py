"""`optimize_scatter_upon_const_tensor` (on by default) rewrites `full(...).scatter(dim, idx,
value)` as `torch.where(mask, value, background).to(dtype)` of two Python scalars, which
computes in float32 whatever the dtype: an int64 background of 2**30 + 1 comes back 2**30 (a
float64 one-hot's 0.9 as 0.8999999761581421). PR #186481 added the `.to(dtype)`, not the
dtype of the computation."""

import torch


def fn(target):
    return torch.full((4, 5), 2**30 + 1, dtype=torch.int64).scatter(1, target, 0.5)


def get_inputs():
    return [torch.tensor([[0], [1], [2], [3]])]
