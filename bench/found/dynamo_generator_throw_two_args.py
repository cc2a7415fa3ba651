# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `g.throw(ValueError, 7)` (the two-argument form, deprecated in 3.12 but valid): CPython
# raises `ValueError(7)` in the generator; Dynamo's generator `throw`
# (torch/_dynamo/variables/functions.py, `args[1] if len(args) == 3 else args[0]`) drops the
# value and raises `ValueError()`: the handler sees empty args (0 for 7), with any backend.
import torch


def fn(x):
    def gen():
        try:
            yield 1
        except ValueError as e:
            yield e.args[0] if e.args else 0

    g = gen()
    next(g)
    return x + g.throw(ValueError, 7)


def get_inputs():
    return [torch.ones(1)]
