# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# An exception raised while Dynamo constant-folds a polyfilled function (`struct.unpack` of a
# short buffer here; also `struct.pack("<b", 300)`, `os.fspath(3)`, `sum([1, "a"])`, `any(3)`)
# escapes as InternalTorchDynamoError instead of being raised inside the traced program, so the
# program's own `except struct.error` never runs and compilation fails (variables/functions.py,
# PolyfilledFunctionVariable.call_function calls the polyfill with no try/except), from
# `backend="eager"` on.
import struct

import torch


def fn(x):
    try:
        (v,) = struct.unpack("<i", b"\x01\x02")
    except struct.error:
        v = -1
    return x + v


def get_inputs():
    return [torch.zeros(2)]
