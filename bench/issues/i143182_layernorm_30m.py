# Written from the facts of https://github.com/pytorch/pytorch/issues/143182 (not copied).
# ruff: noqa
# LayerNorm over a (10000, 1000) normalized shape on a ~30 million element input:
# the compiled CPU kernel's Welford reduction lost far more precision than eager.
# Maintainers fixed it (cascade summation in the Inductor CPU Welford reduction).
import torch
import torch.nn as nn
from torch._dynamo.utils import same


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm([10000, 1000])

    def forward(self, x):
        return self.norm(x)


torch.manual_seed(0)
model = Model().eval()
x = torch.randn(1, 3, 10000, 1000)

with torch.no_grad():
    eager = model(x)
    compiled = torch.compile(model)(x)
    ref64 = model.double()(x.double())

print("eager vs compiled  :", (eager - compiled).abs().max().item())
print("eager vs fp64      :", (eager.double() - ref64).abs().max().item())
print("compiled vs fp64   :", (compiled.double() - ref64).abs().max().item())
print("same(fp64_ref)     :", same(eager, compiled, fp64_ref=ref64))
print("allclose 1e-5      :", torch.allclose(eager, compiled, rtol=1e-5, atol=1e-5))
