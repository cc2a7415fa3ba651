# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (and 2.6.0).
# nn.AvgPool2d / F.avg_pool2d accept one-element tuples for kernel_size, stride and padding
# (eager repeats the value for both spatial dims), and Inductor's forward lowering has since
# PR #96727 (2023). Its backward lowering, avg_pool2d_backward, still asserts
# len(kernel_size) == len(stride) == len(padding) == 2, so a training step through such a
# pool fails to compile: "LoweringException: AssertionError" on aten.avg_pool2d_backward.
# Without gradients it compiles; with (k, k) tuples or ints it compiles. Met by the
# gradient mix campaign (runs/grad-mix, `torchsmith fuzz --grad`, seed 20234: the opinfo
# family's avg_pool2d sample with padding (0,)), reduced by hand.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool2d(2, padding=(1,))

    def forward(self, x):
        return self.pool(x)


def get_inputs():
    return [torch.randn(1, 2, 6, 6, generator=torch.Generator().manual_seed(0))]


check_options = {"grad": True}
