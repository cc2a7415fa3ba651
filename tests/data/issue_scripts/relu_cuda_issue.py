# ruff: noqa
# In the style of a PyTorch issue: its own compile, .cuda(), prints and an assert.
import torch
import torch.nn as nn
from torch._inductor import config

config.fallback_random = True
torch.set_grad_enabled(False)
torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.fc = nn.Linear(c, c)

    def forward(self, x):
        return torch.relu(self.fc(x))


class Model(nn.Module):
    def __init__(self, c=12):
        super().__init__()
        self.b1 = Block(c)
        self.b2 = Block(c)

    def forward(self, x):
        return self.b2(self.b1(x)) - 0.5


if __name__ == "__main__":
    model = Model(12).eval().cuda()
    x = torch.randn(6, 12).cuda()
    out = model(x)
    c_out = torch.compile(model)(x)
    print(out, c_out)
    assert torch.allclose(out, c_out), "mismatch!"
