# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# freezing, dynamic batch (automatic dynamic shapes reach it on a second batch size):
# mkldnn_fusion.py's `reshape_linear_reshape_pattern` folds `reshape -> linear -> reshape` and
# checks the reshapes by comparing `shape[:-1]` products; with a 1-d input `shape[:-1]` is empty
# and `reduce(operator.mul, [])` has no initial value: "TypeError: reduce() of empty iterable
# with no initial value" at compile time. Eager flattens and unflattens without trouble.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 8, bias=False)

    def forward(self, x):  # x: 1-d, B * 16 values
        return self.lin(x.reshape(-1, 16)).reshape(-1)


def get_inputs():
    return [torch.randn(5 * 16, generator=torch.Generator().manual_seed(1))]


compile_kwargs = {"dynamic": True}
compile_config = {"inductor.freezing": True}
