# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (2.6.0 is exact).
# A training step through nn.Conv2d(..., padding_mode="replicate") does not run under
# torch.compile on CPU with default settings: the compiled code's own stride check fails,
# "AssertionError: expected size 4==4, stride 1==64 at dim=1; ...": a (2, 4, 8, 8) tensor
# reaches a stride check channels-last where it is contiguous (the backward graph, compiled
# under Inductor's CPU layout optimization, declares the tensors around the convolution
# channels-last). 2.13's decomposition of the pad sets its output layout from its input's
# (PR #179837, not in 2.6.0); whether that change is the cause is unchecked: "reflect" goes
# through the same decomposition and runs. Without gradients it runs; padding_mode "zeros",
# "reflect" and "circular" run; torch._inductor.config.layout_optimization = False runs;
# aot_eager and aot_eager_decomp_partition run. Any kernel size (1 and 3 checked), float32,
# float16 and bfloat16, static and dynamic shapes. Met by the --grad --dynamic graph-family
# campaign (runs/graph-grad-dyn, seed 240xx: a float16 1x1 conv with replicate padding),
# reduced by the campaign, then by hand to the plain module.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3, padding=1, padding_mode="replicate")

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.rand(2, 4, 8, 8, generator=torch.Generator().manual_seed(0))]


check_options = {"grad": True}
