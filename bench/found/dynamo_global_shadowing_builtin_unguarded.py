# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A module global that shadows a builtin, created after the first call (a later
# `from lib import *`, `mock.patch(..., create=True)`): Dynamo resolves `len` to the builtin when
# the name is absent from the function's globals (symbolic_convert.py, `load_builtin`) and
# guards the builtins dict, never that the name is still absent from the globals, so the compiled
# function keeps calling the builtin: 2 where eager gives 100, silently, with any backend.
import torch


def fn(x):
    return x + len([1, 2])


def get_calls():
    x = torch.zeros(2)
    return [[x], [x]]


def before_call(i, target):
    if i == 0:
        globals().pop("len", None)
    else:
        globals()["len"] = lambda seq: 100
