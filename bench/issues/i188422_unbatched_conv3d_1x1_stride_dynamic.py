# A form of pytorch/pytorch#188422 (closed; reported against the 2.13 RC, still in 2.13.0):
# with dynamic shapes, Inductor's stride-order check (`_stride_expr_ge_or_false`, called from
# `require_stride_order` in graph.run_node) asks value-range analysis about `left % right` of
# two symbolic strides, and the analysis raises `ValueRangeError: Invalid ranges [0:-1]` in
# `pow_by_natural`. Here an unbatched Conv3d (a 4-D input), kernel 1, stride 2: the batched
# input, stride 1 or kernel 2 compile; torch 2.6.0 compiles it (a regression). Met by the
# dynamic-shapes mix campaign (runs/dynamic-mix), reduced by the campaign, checked by hand.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv3d(1, 2, 1, stride=2, bias=False)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.rand(1, 4, 4, 4, generator=torch.Generator().manual_seed(0)) * 4 - 2]


compile_kwargs = {"dynamic": True}
