# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `len(t)` of a 0-d tensor: eager raises TypeError("len() of a 0-d tensor"), which the program
# handles; Dynamo folds `len` to `size(0)` (torch/_dynamo/variables/tensor.py, `sq_length`),
# whose `r[dim]` raises a raw Python IndexError inside the tracer: not an observed exception,
# so no `except` of the user's runs and the compiled call fails ("IndexError: tuple index out
# of range"), with any backend. (`t.shape[3]` / `t.size(5)` inside `try/except IndexError` are
# #198192's family.)
import torch


def fn(t):
    try:
        n = len(t)
    except TypeError:
        n = 1
    return t * n


def get_inputs():
    return [torch.tensor(2.0)]
