# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A tensor subclass that overrides operator dunders (`__add__`, `__neg__`, `__lt__`, `__len__`):
# eager's `x + 1` calls `S.__add__` ([20, 30]); Dynamo's `_handle_insert_op_in_graph`
# (torch/_dynamo/variables/builtin.py) maps `operator.add` straight to the tensor op without
# looking for the user's override: [2, 3], `-x` [-1, -2] for [-6, -7], `len(x)` 2 for 42,
# silently, with any backend. Explicit calls (`x.add(1)`) break the graph and are right.
import torch


class S(torch.Tensor):
    def __add__(self, other):
        return torch.Tensor.__add__(self, other) * 10

    def __neg__(self):
        return torch.Tensor.__neg__(self) - 5

    def __len__(self):
        return 42


def fn(x):
    return x + 1, -x, x * len(x)


def get_inputs():
    return [torch.tensor([1.0, 2.0]).as_subclass(S)]


compile_config = {"functorch.check_custom_op_aliasing": False}
