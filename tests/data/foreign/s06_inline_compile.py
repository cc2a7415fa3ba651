# ruff: noqa
import torch


class M(torch.nn.Module):
    def forward(self, a):
        return torch.nn.functional.interpolate(a, scale_factor=2, mode="nearest")


torch.manual_seed(1)
a = torch.randn(1, 2, 3, 3)
print(torch.compile(M(), backend="inductor")(a))
