"""`torch._inductor.config.freezing = True` on CPU with a convolution (layout optimization: the
conv computes channels-last): a non-dense view of the conv's result returned from a graph
(`chunk` along channels) keeps the channels-last strides (512, 1, 64, 8) where eager gives
(512, 64, 8, 1), because `freezing.enforce_output_layout` skips non-dense outputs. The next
graph (after a graph break) calls `.view` on it, which eager allows and the channels-last strides
do not: "Cannot view a tensor with shape [2, 4, 8, 8] and strides (512, 1, 64, 8)". Returning
`y, y[:, :4]` instead breaks their aliasing: `y` is copied back to contiguous, the slice is not."""

import torch
import torch.nn as nn

compile_config = {"inductor.freezing": True}


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        a, b = self.conv(x).chunk(2, dim=1)
        torch._dynamo.graph_break()
        return a.view(2, -1) + b.reshape(2, -1)


def get_inputs():
    return [torch.randn(2, 3, 8, 8, generator=torch.Generator().manual_seed(0))]
