# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# The builtin `format(value, spec)` under Dynamo: `BuiltinVariable` dispatches on the function's
# name, and `builtins.format` and `str.format` are both named "format", so `call_format`
# (torch/_dynamo/variables/builtin.py) treats `format(n, "b")` as `str(n).format("b")`: the spec
# is dropped, silently (`format(8, "b")` is "8", not "1000"; `format(255, "x")` is "255").
# Code that tests bits through it takes the wrong branch, with any backend (even "eager").
# #144830's fix (PR #144956) turned the earlier AttributeError into this wrong string.
import torch


def fn(x):
    n = x.shape[0]
    is_pow2 = format(n, "b").count("1") == 1
    return (x + 1 if is_pow2 else x - 1), format(n, "b"), format(255, "x")


def get_inputs():
    return [torch.zeros(8)]
