# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `x.type()` (the type string) on a complex64 (or uint16/uint32/uint64/float8) tensor: eager
# returns "torch.ComplexFloatTensor"; Dynamo looks the dtype up with
# `next(k for k, v in tensortype_to_dtype.items() if ...)` (torch/_dynamo/variables/tensor.py)
# over a table of ten dtypes and no default: "InternalTorchDynamoError: StopIteration", a
# crash even without fullgraph (no graph break), with any backend.
import torch


def fn(x):
    return x * 2 if x.type().endswith("FloatTensor") else x


def get_inputs():
    return [torch.ones(2, dtype=torch.complex64)]
