# layer_norm of rows that are constant up to 1e-7: the variance is rounding noise, and dividing
# by its square root amplifies it to O(1).
import torch
import torch.nn.functional as F


class Model(torch.nn.Module):
    def forward(self, a):
        return F.layer_norm(torch.exp(a), (256,), eps=1e-12)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(16, 1, generator=g) * 3 + torch.randn(16, 256, generator=g) * 1e-7]
