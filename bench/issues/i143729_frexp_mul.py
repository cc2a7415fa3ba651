# Written from the facts of https://github.com/pytorch/pytorch/issues/143729 (not copied).
# ruff: noqa
# frexp returns (mantissa float32, exponent int32); multiplying the two inside a
# compiled graph made the CPU C++ backend emit code that does not compile.
import torch
import torch.nn as nn

torch.manual_seed(0)


class Model(nn.Module):
    def forward(self, x):
        mantissa, exponent = torch.frexp(x)
        return mantissa * exponent


x = torch.randn(4, 1)
model = Model()
ref = model(x)
out = torch.compile(model)(x)
print("eager:", ref.flatten().tolist())
print("compiled:", out.flatten().tolist())
torch.testing.assert_close(out, ref)
