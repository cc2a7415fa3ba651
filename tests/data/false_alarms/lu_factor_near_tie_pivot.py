# lu_factor where the two candidate pivots of the first column are exp(a)*exp(b) and exp(a+b),
# equal up to rounding, in half of the batch: partial pivoting picks either row, so the pivots
# and both factors flip with the last bit of exp.
import torch


class Model(torch.nn.Module):
    def forward(self, a, b, m):
        m = m.clone()
        m[:128, 0, 0] = torch.exp(a) * torch.exp(b)
        m[:128, 1, 0] = torch.exp(a + b)
        return torch.linalg.lu_factor(m)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(128, generator=g), torch.randn(128, generator=g)
    return [a, b, torch.rand(256, 6, 6, generator=g) * 0.5]
