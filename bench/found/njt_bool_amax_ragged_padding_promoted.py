# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: amax over the ragged dim of a bool nested jagged tensor. NJT pads with -inf
# and reduces the padded dense tensor; Inductor's lowering of
# aten._jagged_to_padded_dense_forward (jagged_lowerings.py) keeps the default elementwise type
# promotion, so the float padding value promotes the bool (or int64) values to float32, and the
# -inf padding counts as True in the bool "any": [[True, True], [True, True]] for eager's
# [[False, True], [True, False]]. int64 values come back float32 (16777217 -> 16777216.0, an
# empty component -inf for INT64_MIN). aot_eager_decomp_partition is right.
import torch


def fn(values, offsets):
    x = torch.nested.nested_tensor_from_jagged(values, offsets)
    return x.amax(dim=1)


def get_inputs():
    return [torch.tensor([[False, True], [False, False], [True, False]]), torch.tensor([0, 2, 3])]
