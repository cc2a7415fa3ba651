# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `d.pop("missing")` inside `try/except KeyError as e`: CPython's KeyError carries the key,
# `e.args[0]` is "missing"; Dynamo's dict `pop` (torch/_dynamo/variables/dicts.py) raises
# `KeyError()` without args: `len(e.args)` is 0 for 1 (silently, with any backend; a handler
# reading `e.args[0]` breaks the graph and falls back to eager); `"abc".index("z")`'s
# ValueError has empty args too.
import torch


def fn(x, d):
    y = x * 2
    try:
        d.pop("missing")
    except KeyError as e:
        return y + len(e.args)
    return y


def get_inputs():
    return [torch.ones(1), {"a": 1}]
