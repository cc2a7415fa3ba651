# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `(a > 100) == (b > 0)` with `a` uint8 and `b` float64 (also `>=`; uint8 against float32 or
# int64): the vectorized C++ kernel compares `VecMask<unsigned char, 1>` with `VecMask<double, 2>`
# and does not compile ("no match for 'operator=='"): CppVecOverrides.eq / lt / gt / le / ge do
# not unify bool operands' mask types, as `ne` and the bitwise ops do since #141559's fix
# (torch/_inductor/codegen/cpp.py). CRASH at inductor; `cpp.simdlen = 1` compiles.
import torch


def fn(a, b):
    return (a > 100) == (b > 0)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    a = torch.randint(0, 255, (67,), generator=g, dtype=torch.uint8)
    return [a, torch.randn(67, generator=g, dtype=torch.float64)]
