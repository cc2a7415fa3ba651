# A lesser bug torchsmith found (precision, see README.md here); torch 2.13.0 CPU, default settings.
# Eager `lerp` (and `_foreach_lerp`) uses a dual formula: start + w*(end-start) for |w| < 0.5,
# end - (1-w)*(end-start) otherwise, so lerp(start, end, 1.0) is exactly `end`. Under
# torch.compile, `torch.lerp` keeps it (Inductor's lerp decomposition) and so does the in-place
# `torch._foreach_lerp_(starts, ends, w)` with a positional scalar (Dynamo's polyfill,
# `foreach_lerp_inplace`, "to get bitwise identical results"). But the same call with the weight
# as a keyword, the out-of-place `torch._foreach_lerp`, and the ScalarList form skip the polyfill
# and reach Inductor's `_foreach_lerp_scalar(_list)` decompositions, which use the single formula
# start + (end - start) * w: at w = 1 the result loses `end` to cancellation when |start| >>
# |end| (1.5 comes out 0.0; 7.25 comes out 8.0). fp64 agrees with eager to the bit.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, start, end):
        # an EMA/optimizer-style update written with the keyword: weight=1.0 copies `end`
        torch._foreach_lerp_([start], [end], weight=1.0)
        return start


def get_inputs():
    return [torch.tensor([1e8, 3.0, -2e7, 0.5]), torch.tensor([1.5, 1e-3, 7.25, -0.25])]
