# ruff: noqa
import torch
import torch.nn as nn
import torch._inductor.config as inductor_config

inductor_config.fallback_random = True
dtype = torch.float16


class Gated(nn.Module):
    def __init__(self, dim, bias=False):
        super().__init__()
        self.proj = nn.Linear(dim, 2 * dim, bias=bias)

    def forward(self, x):
        a, b = self.proj(x).chunk(2, dim=-1)
        return a * torch.sigmoid(b)


model = Gated(8, bias=True).to("cuda", dtype)
inputs = []
for _ in range(2):
    inputs.append(torch.randn(4, 8, device="cuda", dtype=dtype))
out = model(inputs[0])
c = torch.compile(model)(inputs[0])
print(out, c)
