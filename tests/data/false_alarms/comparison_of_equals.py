# exp(a) * exp(b) < exp(a + b) + c: where c is 0 (a quarter of the positions) the two sides are
# two roundings of the same number, and the comparison goes either way.
import torch


class Model(torch.nn.Module):
    def forward(self, a, b, c):
        return torch.exp(a) * torch.exp(b) < torch.exp(a + b) + c


def get_inputs():
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(4096, generator=g), torch.randn(4096, generator=g)
    c = (torch.rand(4096, generator=g) - 0.5) * (torch.arange(4096) % 4 != 0)
    return [a, b, c]
