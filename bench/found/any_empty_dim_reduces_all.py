# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `torch.any(x, dim=())` (also `torch.all(x, dim=[])`): eager reduces no dimension (an empty dim
# list is not None, which the docs reserve for "all dimensions reduced"; `_refs.any` clones),
# Inductor's `reduce_any` lowering hands the empty list to `_validate_reduction_axis`, which
# reads it as "all dims": a 0-d True for the (2, 3) element-wise result (META-MISMATCH at
# inductor; aot_eager_decomp_partition is right).
import torch


def fn(x):
    return torch.any(x > 0.5, dim=())


def get_inputs():
    return [torch.tensor([[0.1, 0.9, 0.4], [0.7, 0.2, 0.6]])]
