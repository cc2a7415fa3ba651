# A form of pytorch/pytorch#198119 (open): Inductor's avg_pool2d_backward lowering divides a
# window that ceil_mode lets overhang the input by the full kernel size (count_include_pad's
# scale), where eager divides by the part of the window over the padded input, so the input
# gradient is wrong; the forward is right. Here AvgPool1d(kernel_size=2, ceil_mode=True) over a
# length-1 input: eager's gradient is 1, compiled gives 1/2. Met by the gradient mix campaign
# (runs/grad-mix, `torchsmith fuzz --grad`).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool1d(kernel_size=2, ceil_mode=True)

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.rand(1, 1, generator=torch.Generator().manual_seed(0))]


check_options = {"grad": True}
