# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# An exception thrown into a generator with `g.throw(KeyError())` that the generator does not
# catch: CPython finishes the generator, `next(g, "done")` is "done"; Dynamo's `throw`
# (torch/_dynamo/variables/functions.py) re-raises without marking the generator exhausted, and
# it resumes: 2 for "done" (a started generator) and 1 (one never started), with any backend.
import torch


def fn(x):
    def gen():
        yield 1
        yield 2

    g = gen()
    next(g)
    try:
        g.throw(KeyError("k"))
    except KeyError:
        pass
    return x + 1, next(g, "done")


def get_inputs():
    return [torch.ones(1)]
