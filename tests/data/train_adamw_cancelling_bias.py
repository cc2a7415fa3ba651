# A train-hop campaign program (seed 9076, its nested_compile_region removed: not needed):
# three AdamW steps leave a bias that cancels to ~1e-3 thousands of ulps off under compile,
# from torch.optim's float32 step (pytorch#88173). It was a bug-tier `mismatch`.
import torch
import torch.nn as nn
import torch.nn.functional as F


def block(h, w, b):
    return torch.tanh(h @ w.t() + b)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.mid = nn.Linear(8, 8)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(8, 2)

    def forward(self, x):
        h = self.act(self.fc1(x))
        h = block(h, self.mid.weight, self.mid.bias)
        h = block(h, self.mid.weight, self.mid.bias)
        return self.fc2(h)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = Net()
        self.opt = torch.optim.AdamW(
            self.net.parameters(), lr=0.02, betas=(0.9, 0.999), weight_decay=0.001
        )

    def step(self, x, target):
        self.opt.zero_grad(set_to_none=True)
        out = self.net(x)
        loss = F.mse_loss(out, target)
        loss.backward()
        self.opt.step()
        return loss.detach()

    def forward(self, x, target):
        with torch.enable_grad():
            self.step(x, target)
            self.step(x, target)
            self.step(x, target)
        return [p.detach().clone() for p in self.net.parameters()]


def _inputs(seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.rand(3, 4, generator=g) * 2 - 1
    target = torch.rand(3, 2, generator=g) - 0.5
    return [x, target]


def get_inputs():
    return _inputs(733)
