# Written from the facts of https://github.com/pytorch/pytorch/issues/141541 (not copied).
# ruff: noqa
# GroupNorm(32 groups, 32 channels) over a 1x32x128x128x128 input: each group reduces
# 2 million elements and the compiled CPU Welford reduction (no cascade summation) was
# much less accurate than eager. Fixed by adding cascade sum to Inductor's CPU Welford.
import torch
import torch.nn as nn
from torch._dynamo.utils import same

torch.manual_seed(0)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.gn = nn.GroupNorm(num_groups=32, num_channels=32)

    def forward(self, x):
        return self.gn(x)


model = Model().eval()
c_model = torch.compile(model)
x = torch.randn(1, 32, 128, 128, 128)

with torch.no_grad():
    output = model(x)
    c_output = c_model(x)
    ref = model.double()(x.double())

print(torch.max(torch.abs(output - c_output)))
print(torch.allclose(output, c_output, 1.3e-6, 1e-5))
print("eager err vs fp64   :", (output.double() - ref).abs().max().item())
print("compiled err vs fp64:", (c_output.double() - ref).abs().max().item())
print("same(fp64_ref):", same(output, c_output, fp64_ref=ref))
