# Written from the facts of https://github.com/pytorch/pytorch/issues/181266 (not copied).
# ruff: noqa
# flatten of a (12, 14, 10) tensor to (168, 10) followed by BatchNorm1d(10) in training
# mode: the CPU C++ kernel's loop grouping hit "AssertionError: unexpected group".
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(10)

    def forward(self, x):
        return self.bn(torch.flatten(x, 0, 1))


torch.manual_seed(0)
x = torch.randn(12, 14, 10)
net = Net()
ref = net(x)
net2 = Net()
out = torch.compile(net2)(x)
torch.testing.assert_close(out, ref)
print("ok", out.shape)
