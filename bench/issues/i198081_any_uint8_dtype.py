# Written from the facts of https://github.com/pytorch/pytorch/issues/198081 (not copied).
# ruff: noqa
# torch.any on a uint8 tensor keeps the uint8 result type in eager; Inductor's reduce_any
# lowering returns bool, so later uint8 arithmetic changes value (44 vs 300).
import torch


def f(x):
    return torch.any(x) * 200 + 100


x = torch.tensor([[0, 3], [0, 0]], dtype=torch.uint8)
e = f(x)
c = torch.compile(f)(x)
print("eager   ", e, e.dtype)
print("compiled", c, c.dtype)
assert e.dtype == c.dtype and torch.equal(e, c)
