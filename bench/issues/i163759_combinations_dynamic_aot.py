# Written from the facts of https://github.com/pytorch/pytorch/issues/163759 (not copied).
# ruff: noqa
# torch.combinations(x.flatten(), r=2) under backend="aot_eager" with dynamic=True:
# eager works, the compiled path raised "Cannot call numel() on tensor with symbolic
# sizes/strides".
import torch
import torch.nn as nn
from torch._inductor import config

config.fallback_random = True
torch.set_grad_enabled(False)


class Model(nn.Module):
    def forward(self, x):
        return torch.combinations(x.flatten(), r=2)


model = Model()
x = torch.randn(3, 1, 1)


def run(backend):
    torch.manual_seed(0)
    m = model if backend == "eager" else torch.compile(model, backend=backend, dynamic=True)
    out = m(x)
    print(f"succeed on {backend}: {tuple(out.shape)}")
    return out


ref = run("eager")
got = run("aot_eager")
torch.testing.assert_close(got, ref)
