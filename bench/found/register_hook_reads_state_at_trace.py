# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A hook registered on an intermediate inside the compiled function that reads Python state
# changed after registration (`scale[0] = 5.0` before backward runs): eager's hook reads 5.0
# when backward runs, x.grad = 10; Dynamo traces the hook's body at registration
# (torch/_dynamo/variables/tensor.py, `speculate_subgraph` for source-less tensors) and bakes
# in 1.0: x.grad = 2, a silent wrong gradient with any backend (even "eager"), fullgraph too.
# Its input requires grad, so `torchsmith check` judges gradients too.
import torch


def fn(x):
    y = x * 2
    scale = [1.0]
    y.register_hook(lambda g: g * scale[0])
    scale[0] = 5.0
    return y.sum()


def get_inputs():
    return [torch.ones(3, requires_grad=True)]
