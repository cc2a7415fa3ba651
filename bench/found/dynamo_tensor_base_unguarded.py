# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# An input's autograd and view state (`x._base is None`, also `x.is_leaf`, `x.grad_fn is None`,
# `x.retains_grad`) is read by Dynamo as a constant with no guard (variables/tensor.py, the
# getset attribute path; TENSOR_MATCH covers dtype, device, requires_grad, size and stride): a
# second call with a view of the same shape and strides reuses the graph and takes the plain
# tensor's branch (eager 2, compiled 1), from `backend="eager"` on.
import torch


def fn(x):
    return x + (1.0 if x._base is None else 2.0)


def get_calls():
    return [[torch.zeros(3)], [torch.zeros(3)[:]]]
