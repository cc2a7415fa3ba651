# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A grad-mode context object created before the grad mode changes, `eg = torch.enable_grad()`
# then `with torch.no_grad(): with eg: ...`: CPython's `__enter__` records the mode at entry
# (disabled) and `__exit__` restores it; Dynamo's `GradModeVariable.create`
# (torch/_dynamo/variables/ctx_manager.py) records it when the object is built (enabled), so
# after the inner block grad mode is wrongly on inside the outer `no_grad`: `y = w * 2`
# requires grad (True for False), with any backend (even "eager").
import torch


def fn(w, x):
    eg = torch.enable_grad()
    with torch.no_grad():
        with eg:
            loss = (w * x).sum()
        y = w * 2
    return loss.detach(), y.requires_grad


def get_inputs():
    return [torch.ones(3, requires_grad=True), torch.ones(3)]
