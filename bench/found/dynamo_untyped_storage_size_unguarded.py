# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `x.untyped_storage().size()` is folded to a constant with no guard
# (variables/tensor.py, UntypedStorageVariable.call_method("size")): a second call whose input
# has the same shape and strides but a larger storage (a slice of a longer tensor) reuses the
# graph: 4 for 5 elements (16 for 20 bytes); an FSDP-style `if p.untyped_storage().size() == 0` misses a storage
# freed with `resize_(0)` likewise, from `backend="eager"` on.
import torch


def fn(x):
    return x + x.untyped_storage().size() // x.element_size()


def get_calls():
    return [[torch.zeros(4)], [torch.zeros(5)[1:]]]
