# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `y = x.detach(); y.set_(z); x.data_ptr() == y.data_ptr()`: False in eager, True compiled.
# Dynamo folds data_ptr equality when both sides strip back to one root and their fake versions
# agree (variables/tensor.py, `_is_same_data_ptr`, PR #179347), but `detach()` shares the
# version counter, so the `set_` that repointed `y` goes unseen: the branch flips, from
# `backend="eager"` on.
import torch


def fn(x, z):
    y = x.detach()
    y.set_(z)
    return z + (1.0 if x.data_ptr() == y.data_ptr() else 2.0)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(3, 4, generator=g), torch.randn(5, generator=g)]
