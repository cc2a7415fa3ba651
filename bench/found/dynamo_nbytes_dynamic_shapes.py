# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `x.nbytes` in a compiled function called with a second size: automatic dynamic shapes make
# the size symbolic, Dynamo has no handler for the attribute and runs `getattr(fake, "nbytes")`,
# whose C++ uses `numel()`, not `sym_numel()`: "TorchRuntimeError: ... Cannot call numel() on
# tensor with symbolic sizes/strides", a crash (no graph break), with any backend. The first
# call (static sizes) passes; `x.numel() * x.element_size()` passes.
import torch


def fn(x):
    return x * x.nbytes


def get_calls():
    return [[torch.ones(3)], [torch.ones(5)]]
