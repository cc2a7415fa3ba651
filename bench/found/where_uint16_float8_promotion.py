# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `torch.where(c, a, b)` with uint16 (uint32, uint64, float8_e4m3fn, float8_e5m2) values under
# Inductor on CPU: the C++ backend's dtype propagation (torch/_inductor/codegen/common.py,
# `DataTypePropagation.deduce_node_dtype_by_inputs`) promotes over every input of `where`, its
# bool condition included, and `torch.promote_types(bool, uint16)` raises: "Promotion for uint16,
# uint32, uint64 types is not supported, attempted to promote Bool and UInt16" (InductorError, a
# crash; float8 alike) where eager and the aot_eager rungs give [40000, 6, 7, 1]. Any kernel
# holding such a `where` fails, the scalar forms too.
import torch


def fn(c, a, b):
    return torch.where(c, a, b)


def get_inputs():
    c = torch.tensor([True, False, True, False])
    a = torch.tensor([40000, 2, 7, 9], dtype=torch.uint16)
    b = torch.tensor([5, 6, 8, 1], dtype=torch.uint16)
    return [c, a, b]
