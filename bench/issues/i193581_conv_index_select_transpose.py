# Written from the facts of https://github.com/pytorch/pytorch/issues/193581 (not copied).
# ruff: noqa
# conv2d with an all-zero (2,2,1,6) weight and padding 2, then index_select on dim 2
# with a constant index tensor: the CPU C++ kernel referenced an undeclared temporary
# inside transpose_mxn and failed to compile.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def forward(self, a):
        w = torch.zeros(2, 2, 1, 6)
        c = F.conv2d(a, w, stride=1, padding=2, dilation=1, groups=1)
        idx = torch.tensor([3, 4, 6, 8])
        return torch.index_select(c, 2, idx)


torch.manual_seed(42)
a = torch.rand(1, 2, 5, 6, dtype=torch.float32)
net = Net()
with torch.no_grad():
    ref = net(a)
    out = torch.compile(net, mode="default")(a)
print(ref.shape, out.shape)
torch.testing.assert_close(out, ref)
