# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `str(Point(1, 2))` of a namedtuple built in the compiled function: Dynamo's `call_str`
# (torch/_dynamo/variables/builtin.py) runs the real `__repr__` on a placeholder value without
# the fields: "TypeError: not enough arguments for format string" (InternalTorchDynamoError, a
# crash, no graph break; only AttributeError is caught there); `"%s" % (p,)` alike, `repr(p)`
# works.
import collections

import torch

Point = collections.namedtuple("Point", "x y")


def fn(t):
    return t + 1, str(Point(1, 2))


def get_inputs():
    return [torch.zeros(2)]
