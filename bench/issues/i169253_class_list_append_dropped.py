# Written from the facts of https://github.com/pytorch/pytorch/issues/169253 (not copied).
# ruff: noqa
# forward() appends its input to a class-level list and returns nothing. Eager grows the
# list by one per call; with forward compiled, the appends were silently dropped.
import torch
import torch.nn as nn


class Model(nn.Module):
    items = []

    def forward(self, x):
        Model.items.append(x)


Model.items.clear()
m1 = Model()
m1(torch.randn(2, 4))
m1(torch.randn(2, 4))
n_eager = len(Model.items)
print(f"Without compile: {n_eager} items")

Model.items.clear()
m2 = Model()
m2.forward = torch.compile(m2.forward)
m2(torch.randn(2, 4))
m2(torch.randn(2, 4))
n_comp = len(Model.items)
print(f"With compile: {n_comp} items")
assert n_eager == n_comp
