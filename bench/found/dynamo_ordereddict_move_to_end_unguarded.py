# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# An OrderedDict (a global here; an argument alike) reordered with `move_to_end()` between two calls: Dynamo's dict guard
# checks the keys' order by walking `PyDict_Next` (torch/_dynamo/guards.py gives OrderedDict
# the plain DICT_GUARD_MANAGER), which follows the dict's own storage; `move_to_end` changes
# only OrderedDict's linked list, so the guard passes and the compiled function keeps the old
# order: [1, 10] where eager gives [10, 1], silently, with any backend (even "eager"). A fresh
# compile gives [10, 1]. (#198189 is `move_to_end` inside a compiled function.)
import collections

import torch

SCALES = collections.OrderedDict()


def fn(x):
    return torch.cat([x * v for v in SCALES.values()])


def get_calls():
    x = torch.ones(1)
    return [[x], [x]]


def before_call(i, target):
    if i == 0:  # each run starts from the same order
        SCALES.clear()
        SCALES.update(a=1.0, b=10.0)
    else:
        SCALES.move_to_end("a")
