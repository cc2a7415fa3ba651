# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# freezing: binary folding (`binary_folding.py`, `_check_conv_and_broadcast_op`) never looks at
# the convolution's `transposed` flag. A transposed convolution's weight is `[C_in, C_out / g,
# k, k]`, so a per-output-channel `* scale` is checked against and folded into dim 0, `C_in`:
# with C_in == C_out the fold happens and scales the wrong axis: off fp64 by 0.8 (eager 2e-7);
# grouped, by 1.5. (C_in != C_out fails the shape check and stays correct.)
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.conv = nn.ConvTranspose2d(4, 4, 3)
        self.register_buffer("scale", torch.randn(4, 1, 1, generator=g))  # per output channel

    def forward(self, x):
        return self.conv(x) * self.scale


def get_inputs():
    return [torch.randn(2, 4, 5, 5, generator=torch.Generator().manual_seed(1))]


compile_config = {"inductor.freezing": True}
