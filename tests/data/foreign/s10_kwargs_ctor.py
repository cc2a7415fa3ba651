# ruff: noqa
import torch
import torch.nn as nn


class ConvModel(nn.Module):
    def __init__(self, in_ch, out_ch, k=3):
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, k)

    def forward(self, x):
        return self.conv(x).amax(dim=(2, 3))


model = ConvModel(in_ch=3, out_ch=4).cuda()
model = torch.compile(model)
x = torch.randn(2, 3, 8, 8).cuda()
print(model(x))
