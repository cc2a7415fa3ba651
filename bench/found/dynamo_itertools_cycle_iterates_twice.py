# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `itertools.cycle(src)` of an iterable whose `__iter__` has a side effect (an epoch counter):
# CPython calls `iter(src)` once; Dynamo's `cycle` polyfill (torch/_dynamo/polyfills/
# itertools.py) takes an iterator and then loops over the iterable again: `__iter__` runs twice,
# the epoch is 2 for 1 and the values come from the second epoch (20 for 10), silently, with any
# backend, fullgraph too.
import itertools

import torch


class Epochs:
    def __init__(self):
        self.epoch = 0

    def __iter__(self):
        self.epoch += 1
        return iter([self.epoch * 10, self.epoch * 10 + 1])


def fn(x, src):
    c = itertools.cycle(src)
    return x + next(c), src.epoch


def get_inputs():
    return [torch.zeros(1), Epochs()]
