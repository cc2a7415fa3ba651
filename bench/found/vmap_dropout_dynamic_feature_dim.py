# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `vmap(lambda a: F.dropout(a, 0.3), randomness="different")(x)` called a second time with another
# feature size (automatic dynamic shapes make a non-batch dimension symbolic): Dynamo's fake run
# of the vmapped dropout reaches a `numel()` on symbolic sizes (functorch's dropout batching rule
# or the composite `at::dropout` under the vmap mode): "Cannot call numel() on tensor with
# symbolic sizes/strides" (a crash, no graph break, with any backend). `randomness="same"`,
# `alpha_dropout` and `dropout1d` alike; dropout outside vmap, `bernoulli` and `rand_like` under
# vmap, and a symbolic batch dimension alone compile. A crash, so the random values are not
# judged.
import torch
import torch.nn.functional as F
from torch.func import vmap


def fn(x):
    return vmap(lambda a: F.dropout(a, 0.3), randomness="different")(x)


def get_calls():
    return [[torch.randn(5, 4)], [torch.randn(5, 6)]]
