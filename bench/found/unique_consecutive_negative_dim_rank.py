# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU with
# capture_dynamic_output_shape_ops (which torch.unique_consecutive needs to be traced).
# `torch.unique_consecutive(x, dim=-1)`: the fake implementation does not normalize a negative
# `dim` (fake_impls.py, `unique_consecutive` passes it to `_unique` as is; the `unique_dim`
# wrapper does), so a (2, 3) input traces to a 4-d output (2, nnz, 2, 3): `u.ndim` is 4 where
# eager gives 2 from `backend="eager"` on; Inductor fails ("wrong number of dimensions").
import torch


def fn(x):
    u = torch.unique_consecutive(x, dim=-1)
    return u * 10 + u.ndim


def get_inputs():
    return [torch.tensor([[1.0, 1.0, 2.0], [3.0, 3.0, 4.0]])]


compile_config = {"dynamo.capture_dynamic_output_shape_ops": True}
