# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A size comparison used as a list index, `[10, 20][x.shape[0] > 3]` (a bool is an int in
# Python): the second call with another size makes the size symbolic (automatic dynamic) and the
# comparison a SymBool, which Dynamo's list indexing refuses: "index must be int or SymInt,
# got SymBool" (torch/_dynamo/variables/lists.py), a crash, no graph break. The other int
# operators on a SymBool fail alike (`^`, unary `-`, `abs`, `/`, `//`, `**`, `max(c, 0)`):
# `bool_becomes_int_magic_methods` (torch/fx/experimental/sym_node.py) has only add, sub, mul.
import torch


def fn(x):
    return x * [10, 20][x.shape[0] > 3], x * -(x.shape[0] > 3)


def get_calls():
    return [[torch.ones(5)], [torch.ones(6)]]
