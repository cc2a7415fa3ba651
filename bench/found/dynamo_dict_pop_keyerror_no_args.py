# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `d.pop("missing")` inside `try/except KeyError as e`: CPython's KeyError carries the key,
# `e.args[0]` is "missing"; Dynamo's dict `pop` (torch/_dynamo/variables/dicts.py) raises
# `KeyError()` without args: the handler's `e.args[0]` is an IndexError (a crash where eager
# runs); `"abc".index("z")`'s ValueError has empty args too. With any backend.
import torch


def fn(x, d):
    try:
        d.pop("missing")
    except KeyError as e:
        return x + 1, e.args[0]
    return x, ""


def get_inputs():
    return [torch.ones(1), {"a": 1}]
