# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `h = y.register_hook(fn); h.remove()` on an intermediate inside the compiled function:
# eager removes the hook (x.grad = 6); Dynamo's new register_hook path
# (torch/_dynamo/variables/tensor.py) builds the `RemovableHandleVariable` without an index and
# `remove()` asserts: "idx must not be None for hook removal" (a crash, no graph break, with any
# backend). Its input requires grad: gradients judged.
import torch


def fn(x):
    y = x * 2
    h = y.register_hook(lambda g: g * 100)
    h.remove()
    return (y * 3).sum()


def get_inputs():
    return [torch.ones(3, requires_grad=True)]
