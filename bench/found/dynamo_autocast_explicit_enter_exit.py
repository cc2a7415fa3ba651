# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A `torch.autocast` object entered and exited by explicit calls, `ctx.__enter__()` ...
# `ctx.__exit__(None, None, None)` (as a helper that opens a region in one place and closes it in
# another does): eager computes the matmul in float16 and restores the state; Dynamo's
# `AutocastModeVariable` (torch/_dynamo/variables/ctx_manager.py) has no handler for the explicit
# calls, each one breaks the graph and the object entered is a rebuilt copy, not `ctx`:
# "AttributeError: 'autocast' object has no attribute 'prev'" at `__exit__` (a crash, with any
# backend), and the autocast dtype is left changed for the caller. `torch.inference_mode()` used
# the same way fails alike.
import torch


def fn(x):
    ctx = torch.autocast("cpu", dtype=torch.float16)
    ctx.__enter__()
    y = x @ x
    ctx.__exit__(None, None, None)
    return y


def get_inputs():
    return [torch.randn(4, 4)]
