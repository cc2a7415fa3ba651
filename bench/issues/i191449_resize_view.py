# Written from the facts of https://github.com/pytorch/pytorch/issues/191449 (not copied).
# ruff: noqa
# resize_ called on a view of an intermediate: eager keeps the base at one element, the
# compiled function returned a 12-element tensor of mostly garbage.
import torch


def f(x):
    base = x + 1
    alias = base.view(-1)
    alias.resize_(12)
    return base + 1


x = torch.zeros(1)
print("eager:", f(x.clone()))
compiled_f = torch.compile(f, backend="inductor")
out = compiled_f(x.clone())
print("compiled:", out)
assert out.shape == (1,), out.shape
