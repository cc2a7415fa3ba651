# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `torch.linspace(start, end, steps, dtype=torch.int64)` with large integer endpoints (epoch
# milliseconds, token offsets): eager computes the steps in double and is exact; the reference
# decomposition (torch/_refs `linspace`) multiplies its int64 `arange` by a Python float step,
# which promotes to the default dtype, float32, before the cast back: every element comes out
# 1700000038912 (even the endpoints; exact: 1700000000000, ..., 1700000000100). int32 alike
# (`2**30 .. 2**30 + 100`: 1073741824 three times, then 1073741952). The decomposition rung
# already fails; fp64 sides with eager. #137546 (open PR #187396) is the same function's
# fractional-endpoint truncation, another cause.
import torch


def fn(x):
    return x + torch.linspace(1_700_000_000_000, 1_700_000_000_100, 5, dtype=torch.int64)


def get_inputs():
    return [torch.zeros(5, dtype=torch.int64)]
