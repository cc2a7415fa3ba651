# Written from the facts of https://github.com/pytorch/pytorch/issues/142223 (not copied).
# ruff: noqa
# tanh of a 64x64 float32 tensor on CPU: compiled and eager differ by ~1.8e-07 (a couple
# of ulps), enough to fail torch.allclose at default tolerances; CUDA matched exactly.
import torch
import torch.nn as nn

torch.manual_seed(42)


class Model(nn.Module):
    def forward(self, x):
        return torch.tanh(x)


m = Model()
x = torch.randn(64, 64)
with torch.no_grad():
    m = m.eval()
    y = m(x)
    c_y = torch.compile(m)(x)
    ref = m(x.double())
print(torch.allclose(y, c_y))
print(torch.max(torch.abs(y - c_y)))
print("eager err vs fp64   :", (y.double() - ref).abs().max().item())
print("compiled err vs fp64:", (c_y.double() - ref).abs().max().item())
