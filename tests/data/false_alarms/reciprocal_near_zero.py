# 1/x where x is the difference of two nearly equal exponentials: the rounding error of exp is
# amplified without bound (pytorch#188432).
import torch


class Model(torch.nn.Module):
    def forward(self, a, b):
        return 1.0 / (torch.exp(a) - torch.exp(b))


def get_inputs():
    g = torch.Generator().manual_seed(0)
    a = torch.randn(4096, generator=g)
    return [a, a + torch.randn(4096, generator=g) * 1e-3]
