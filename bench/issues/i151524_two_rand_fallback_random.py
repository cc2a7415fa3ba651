# Written from the facts of https://github.com/pytorch/pytorch/issues/151524 (not copied).
# ruff: noqa
# A forward with no inputs that calls torch.rand(1) twice and returns the second draw.
# With fallback_random = True eager and compiled should agree after re-seeding; the
# compiled graph dropped the first (unused) draw, so it returned eager's first number.
import torch
import torch.nn as nn
from torch._inductor import config

config.fallback_random = True
torch.set_grad_enabled(False)


class Model(nn.Module):
    def forward(self):
        x = torch.rand(1)
        x = torch.rand(1)
        return x


model = Model()


def run(backend):
    m = model if backend == "eager" else torch.compile(model, backend=backend)
    torch.manual_seed(0)
    return m()


out = run("eager")
c_out = run("inductor")
print(out)
print(c_out)
assert torch.equal(out, c_out)
