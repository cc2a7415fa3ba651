# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# Raising a saved exception inside a new `except` block: CPython sets its `__context__` to the
# exception being handled now (the second TypeError, args (1,)); Dynamo's
# `ExceptionStack._set_context_recursive` (torch/_dynamo/symbolic_convert.py) returns early when
# the exception already has a context and keeps the first one, (0,): a silent wrong value, with
# any backend (even "eager": Dynamo's own), fullgraph too.
import torch


def fn(x):
    saved = None
    ctx = None
    for i in range(2):
        try:
            try:
                raise TypeError(i)
            except TypeError:
                raise saved if saved is not None else KeyError("k")  # noqa: B904
        except KeyError as k:
            saved = k
            ctx = k.__context__.args[0]
    return x + ctx


def get_inputs():
    return [torch.ones(1)]
