# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Under dynamic shapes, Inductor's code for aten.unfold_backward is wrong when an unfold
# along dim 0 has exactly one window and the tensor has two or more columns: the gradient of
# window element k lands in the wrong row (row 2k for three columns: rows 0, 2, 4 of a (5, 3)
# input here), the rows that should get it get zeros, and when the row is past the last one
# the kernel writes out of bounds (a (4, 3) input: glibc aborts with "double free or
# corruption" or "munmap_chunk(): invalid pointer"). Static shapes, two or more windows, one
# column, or the same unfold along dim 1 are exact; so are aot_eager and the decomposing rung.
# Automatic dynamic shapes reach it too: a compiled training step called with 8 rows (two
# windows) and then 5 rows (one window) gets the wrong gradient on the second call. torch.ops
# .aten.unfold_backward compiled alone with dynamic=True shows the same rows. On 2.6.0 the
# same program does not compile (an AssertionError in the C++ store), so 2.13's wrong values
# came with the newer decomposition. Met by the --grad --dynamic mix campaign
# (runs/grad-dyn, seed 22466: the graph family), reduced by the campaign, then by hand.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.unfold(0, 3, 3) * 2


def get_inputs():
    return [torch.randn(5, 3, generator=torch.Generator().manual_seed(0))]


compile_kwargs = {"dynamic": True}
check_options = {"grad": True}
