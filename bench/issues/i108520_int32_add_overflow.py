# Written from the facts of https://github.com/pytorch/pytorch/issues/108520 (not copied).
# ruff: noqa
# A 0-dim int32 holding INT32_MAX added to itself then cast to int64: eager wraps to -2
# in int32, the CPU C++ kernel did the add in 64-bit and returned 4294967294.
import torch


def add_then_widen(x):
    return (x + x).to(torch.int64)


x = torch.tensor(2147483647, dtype=torch.int32)
eager = add_then_widen(x)
dyn = torch.compile(add_then_widen)(x)
print(eager)
print(dyn)
