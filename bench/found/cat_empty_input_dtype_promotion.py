# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: Inductor's `cat` decomposition (torch/_inductor/decomposition.py) drops the
# empty inputs eager's `cat` skips (a legacy 1-d `torch.tensor([])`, or a zero-size slice along
# the cat dim) before it concatenates the rest. When one input is left, it applies the type
# promotion over *all* inputs (the fix of #152606, PR #152995); when two or more are left, it
# redispatches `cat(filtered, dim)`, whose promotion no longer sees the dropped ones. So an empty
# accumulator of another dtype (`torch.tensor([])` is float32) stops promoting the result:
# eager returns float32, compiled returns int64 (and float64 -> float32 for floats), with the
# graph's own metadata saying float32.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        acc = torch.tensor([])  # an empty float32 accumulator, a common idiom
        return torch.cat([acc, a, b])


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 9, (3,), generator=g), torch.randint(0, 9, (4,), generator=g)]
