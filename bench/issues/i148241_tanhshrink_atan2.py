# Written from the facts of https://github.com/pytorch/pytorch/issues/148241 (not copied).
# ruff: noqa
# Tanhshrink followed by atan2(x, x): on the CPP backend the compiled result differs
# from eager by pi at some positions (the sign of zero/tiny values produced by
# Tanhshrink differs, and atan2 maps -0/-0 to -pi); Triton matched eager.
import torch
import torch.nn as nn
from torch._inductor import config

config.fallback_random = True
torch.set_grad_enabled(False)
torch.manual_seed(0)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.shrink = nn.Tanhshrink()

    def forward(self, x):
        x = self.shrink(x)
        return torch.atan2(x, x)


model = Model()
x = torch.randn(1, 3, 64, 64)


def run_test(model, inputs, backend):
    if backend != "eager":
        model = torch.compile(model, backend=backend)
    torch.manual_seed(0)
    return model(*inputs)


output = run_test(model, [x], "eager")
c_output = run_test(model, [x], "inductor")
print(torch.allclose(output, c_output, 1e-3, 1e-3, equal_nan=True))
print(torch.max(torch.abs(output - c_output)))
