# A form of pytorch/pytorch#195442 (PR #195463): the opt-in post-grad `batch_aten_sub` fusion
# stacks five or more same-shape `sub`s into one and passes `alpha` only for `add`, so
# `torch.sub(x, y, alpha=2)` computes `x - y`. Written from the facts.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b, c, d, e, f):
        xs = (a, b, c, d, e, f)
        return [torch.sub(xs[i], xs[i + 1], alpha=2) for i in range(5)]


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(4, 3, generator=g) for _ in range(6)]


compile_config = {"inductor.post_grad_fusion_options": {"batch_aten_sub": {}}}
