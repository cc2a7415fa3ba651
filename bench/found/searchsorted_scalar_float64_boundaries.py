# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: Inductor decomposes `torch.searchsorted(seq, scalar)` and
# `torch.bucketize(scalar, boundaries)` (decomposition.py, `searchsorted_scalar`,
# `bucketize_scalar`) into the tensor overloads with `torch.tensor([scalar])`, which makes a
# Python float a float32 tensor whatever the boundaries' dtype. Eager compares the scalar as a
# double against float64 boundaries. So 0.1 against a boundary at 0.1 + 1e-9 (no tie: the gap is
# ~1e7 float64 ulps) is rounded to float32 (0.10000000149...), past the boundary, and lands one
# bucket to the right: eager 1, compiled 2 (the fp64 run agrees with eager; a value equal to a
# boundary moves the same way).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, edges):
        return torch.searchsorted(edges, 0.1), torch.bucketize(0.1, edges)


def get_inputs():
    return [torch.tensor([0.05, 0.1 + 1e-9, 0.3], dtype=torch.float64)]
