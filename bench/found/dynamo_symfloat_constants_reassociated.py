# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `int(x.shape[0] * 0.3 * 10)` under dynamic shapes (the second call with another size): Python
# evaluates left to right, (9 * 0.3) * 10 = 26.999999999999996, int 26; Dynamo's SymFloat is a
# sympy expression and sympy folds the float constants, 3.0 * s0 = 27.0, int 27
# (torch/fx/experimental/sym_node.py builds float add/mul as sympy Add/Mul, which flatten and
# combine numbers): a branch on the result takes the wrong side, silently, with any backend
# (even "eager"); under Inductor the size of `torch.zeros(k)` is 27 for 26.
import torch


def fn(x):
    k = int(x.shape[0] * 0.3 * 10)
    if k == 26:
        return x.sum() + 100
    return x.sum()


def get_calls():
    return [[torch.ones(8)], [torch.ones(9)]]
