# ruff: noqa
import torch
from torch import nn

in_features = 16
hidden = in_features * 2
out_features = 4
batch = 3


class MLP(nn.Module):
    def __init__(self, i, h, o):
        super().__init__()
        self.l1 = nn.Linear(i, h)
        self.l2 = nn.Linear(h, o)

    def forward(self, x):
        return self.l2(torch.tanh(self.l1(x)))


mlp = MLP(in_features, hidden, out_features).cuda().eval()
inp = torch.rand(batch, in_features).cuda()
try:
    out = torch.compile(mlp)(inp)
    print(out.shape)
except Exception as e:
    print("compile failed:", e)
    raise
