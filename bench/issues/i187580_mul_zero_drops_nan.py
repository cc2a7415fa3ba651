# pytorch/pytorch PRs #186281 / #186379 / #187580: Inductor's uniform-value constant folder
# rewrites a float `x * 0` to zeros, which drops the NaN (and Inf * 0 = NaN) eager keeps.
# torchsmith's reduced form from the steering bench (bench/steer.py): a NaN written by
# masked_fill, then multiplied by 0. Still live on torch 2.13.0 CPU.
import torch


class Model(torch.nn.Module):
    def forward(self, z):
        return z.masked_fill(torch.arange(35).reshape((7, 5)) == 0, float("nan")) * 0


def get_inputs():
    return [torch.rand(1)]
