"""`x[perm] = x[1:] + 1` with `perm` a slice of `torch.randperm`: Inductor's `index_put_`
lowering skips realizing the values when every index comes from a randperm ("the indices are
unique", `indice_slice_from_randperm`), so the values are computed inside the scatter loop and
read elements of `x` it already overwrote. Eager computes `x[1:] + 1` first; unique indices rule
out duplicate writes, not reads after writes. `index_add_` alike."""

import torch


def fn(x):
    perm = torch.randperm(x.shape[0])[:-1]
    x[perm] = x[1:] + 1
    return x


def get_inputs():
    return [torch.arange(64, dtype=torch.float32)]
