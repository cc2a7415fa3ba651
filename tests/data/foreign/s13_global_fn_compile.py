# ruff: noqa
import torch
import torch.nn as nn

N = 6


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("offset", torch.arange(N, dtype=torch.float32))

    def forward(self, x):
        return torch.where(x > 0, x + self.offset, torch.zeros_like(x))


model = Model().cuda()


@torch.compile(backend="inductor")
def fn(inp):
    return model(inp)


x = torch.randn(2, N).cuda()
print(fn(x))
