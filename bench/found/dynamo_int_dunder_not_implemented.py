# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# An explicit dunder call on a Python number, `(1).__eq__(1.0)` / `(5).__add__(2.5)`: CPython's
# `int` slot wrappers return NotImplemented for a float operand; Dynamo evaluates them with
# `operator.__eq__` / `operator.__add__` (torch/_dynamo/variables/constant.py), the full binary
# protocol, and returns True / 7.5. The usual delegating `__eq__` (`return self.v.__eq__(other)`)
# then makes `Meters(1) == 1.0` True compiled, False in eager (NotImplemented both ways, then
# identity), and the branch flips, silently, with any backend (even "eager").
import torch


class Meters:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return self.v.__eq__(other)


def fn(x):
    same = Meters(1) == 1.0
    return (x + 1 if same else x - 1), (5).__add__(2.5)


def get_inputs():
    return [torch.zeros(2)]
