# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `stack.pop(i)` with `i < -len(stack)` inside `try/except IndexError`: Dynamo checks only
# `i >= len` (PR #179617) and then pops its own item list, whose raw IndexError no user `except`
# sees (variables/lists.py, ListVariable pop): compilation fails where eager takes the fallback,
# from `backend="eager"` on.
import torch


def fn(x):
    stack = [x * 2, x * 3]
    try:
        y = stack.pop(-5)
    except IndexError:
        y = x - 100
    return y


def get_inputs():
    return [torch.ones(3)]
