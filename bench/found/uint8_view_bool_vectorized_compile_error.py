# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A uint8 0/1 mask reinterpreted with `m.view(torch.bool)` and then used
# (`x.masked_fill(m.view(torch.bool), 1.0)`, `.float()`, `torch.where`, `&`, `.any()`) in
# Inductor's vectorized CPU kernel: `to_dtype_bitcast` has no vector override, is scalarized
# and its result loaded as `Vectorized<bool>` (torch/_inductor/codegen/cpp.py,
# `CppVecOverrides._scalarize`) where bool vectors must be `VecMask`: "'struct
# at::vec::Vectorized<bool>' has no member named 'to'" (C++ compile error, a crash); int8 alike.
# Eager and the aot_eager rungs run. 17 elements: the vector path and a tail.
import torch


def fn(x, m):
    return x.masked_fill(m.view(torch.bool), 1.0)


def get_inputs():
    m = (torch.arange(17) % 3 == 0).to(torch.uint8)
    return [torch.linspace(-1.0, 1.0, 17), m]
