# A form of the bug PR #197069 fixed (after 2.13.0): the opt-in `batch_linear_post_grad`
# fusion groups `mm`s by shape without their dtype and stacks them into one `bmm`, so a
# float32 `mm` batched with a float64 one returns float64. Written from the PR's facts.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, *xs):
        return [torch.mm(xs[2 * i], xs[2 * i + 1]) for i in range(5)]


def get_inputs():
    g = torch.Generator().manual_seed(0)
    out = []
    for dt in (torch.float32, torch.float32, torch.float64, torch.float32, torch.float32):
        out += [torch.randn(3, 4, generator=g, dtype=dt), torch.randn(4, 2, generator=g, dtype=dt)]
    return out


compile_config = {"inductor.post_grad_fusion_options": {"batch_linear_post_grad": {}}}
