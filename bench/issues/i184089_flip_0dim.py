# Written from the facts of https://github.com/pytorch/pytorch/issues/184089 (not copied).
# ruff: noqa
# flip() over dim 0 of a 0-dim tensor is a no-op in eager; torch.compile crashed.
import torch


@torch.compile
def flip_scalar(t):
    return torch.flip(t, dims=[0]) * 2


t = torch.tensor(3.0)
print("eager   :", torch.flip(t, dims=[0]) * 2)
print("compiled:", flip_scalar(t))
