# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: the public functional torch.optim.adamax.adamax with foreach=True,
# capturable=False, compiled: while compiling, _get_value() returns 0-d tensors, so step_size is
# a list of tensors passed straight to torch._foreach_addcdiv_ (torch/optim/adamax.py), which
# has no such overload: "TypeError: _foreach_addcdiv_() received an invalid combination of
# arguments - got (list, list, list, list)". PR #125833 once wrapped this list in
# _stack_if_compiling; the 2.13 source no longer does (a regression). Eager runs.
import torch
from torch.optim.adamax import adamax


def fn(p0, p1, g0, g1):
    ps = [p0, p1]
    exp_avgs = [torch.zeros_like(p) for p in ps]
    exp_infs = [torch.zeros_like(p) for p in ps]
    steps = [torch.tensor(0.0) for _ in ps]
    adamax(
        ps,
        [g0, g1],
        exp_avgs,
        exp_infs,
        steps,
        foreach=True,
        capturable=False,
        eps=1e-8,
        beta1=0.9,
        beta2=0.999,
        lr=0.01,
        weight_decay=0.0,
    )
    return ps


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [
        torch.randn(4, 3, generator=g),
        torch.randn(5, generator=g),
        torch.randn(4, 3, generator=g),
        torch.randn(5, generator=g),
    ]
