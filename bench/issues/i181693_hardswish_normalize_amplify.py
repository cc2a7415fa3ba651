# Written from the facts of https://github.com/pytorch/pytorch/issues/181693 (not copied).
# ruff: noqa
# InstanceNorm -> global average pool -> F.normalize(dim=0) -> Hardswish -> F.normalize.
# The pooled values of a zero-mean normalized map are ~1e-8, so F.normalize divides by
# a tiny norm and amplifies a reduction-order difference of ~1e-8 to O(1). The thread
# concluded this is not a Hardswish/Inductor bug: the computation is ill-conditioned.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.inst_norm = nn.InstanceNorm2d(8)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.act = nn.Hardswish()

    def forward(self, x):
        t = self.inst_norm(x)
        t = self.pool(t).flatten(1)
        t = F.normalize(t, dim=0)
        t = self.act(t)
        return F.normalize(t, dim=0)


torch.manual_seed(0)
model = Model().eval()
x = torch.randn(4, 8, 32, 32)
with torch.no_grad():
    eager = model(x)
    compiled = torch.compile(model, backend="inductor")(x)
    ref = model.double()(x.double())
print("max_diff eager vs compiled:", (eager - compiled).abs().max().item())
print("eager vs fp64   :", (eager.double() - ref).abs().max().item())
print("compiled vs fp64:", (compiled.double() - ref).abs().max().item())
