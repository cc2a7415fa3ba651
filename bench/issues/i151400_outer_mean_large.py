# Written from the facts of https://github.com/pytorch/pytorch/issues/151400 (not copied).
# ruff: noqa
# mean over dim 1 of outer(vec, ones_like(vec)) for a long flattened input: each row's
# mean is exactly vec[i], eager's cascaded sum gets it nearly exact, the compiled CPU
# reduction accumulated sequentially in float32 and drifted (the error grows with the
# input size). The issue used a 3x8x64x64 input; 3x8x32x32 is used here so that eager's
# materialised outer product (24576^2 floats) fits in memory.
import torch
import torch.nn as nn
from torch._inductor import config

config.fallback_random = True
torch.set_grad_enabled(False)
torch.manual_seed(0)


class Model(nn.Module):
    def forward(self, x):
        vec = x.flatten()
        ones = torch.ones_like(vec)
        return torch.mean(torch.outer(vec, ones), dim=1)


model = Model()
x = torch.randn(3, 8, 32, 32)
output = model(x)
c_output = torch.compile(model)(x)
fp64 = model.to(dtype=torch.float64)(x.double())
print(torch.allclose(output, c_output, rtol=1e-3, atol=1e-3))
print("max |eager - compiled|:", torch.max(torch.abs(c_output - output)).item())
print("eager err vs fp64   :", (output.double() - fp64).abs().max().item())
print("compiled err vs fp64:", (c_output.double() - fp64).abs().max().item())
print("same(fp64_ref):", torch._dynamo.utils.same(output, c_output, fp64_ref=fp64))
