# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `itertools.repeat(x, times=2)` (the keyword form of the count) repeats forever under Dynamo:
# `RepeatIteratorVariable` is built from the positional arguments only
# (torch/_dynamo/variables/iter.py, `if len(args) < 2`), so `times=` is dropped and `zip`
# runs to the end of the other iterable: 1*1 + 1*2 = 3 in eager, 1 + 2 + 3 + 4 = 10 compiled,
# silently, with any backend (even "eager": Dynamo's own). `repeat(object=x, times=2)` raises
# InternalTorchDynamoError ("RepeatIteratorVariable.__init__() missing ... 'item'").
import itertools

import torch


def fn(x, weights):
    return sum(a * w for a, w in zip(itertools.repeat(x, times=2), weights))


def get_inputs():
    return [torch.ones(3), [1.0, 2.0, 3.0, 4.0]]


if __name__ == "__main__":
    x, w = get_inputs()
    print("eager:", fn(x, w), "compiled:", torch.compile(fn, backend="eager")(x, w))
