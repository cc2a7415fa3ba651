# Written from the facts of https://github.com/pytorch/pytorch/issues/151744 (not copied).
# ruff: noqa
# clamp of an int64 tensor with float bounds (-0.5, 0.5): eager promotes the result to
# float32 (giving 0.5 for input 1); the decomposed/compiled graph kept int64 and returned 0.
import torch
import torch.nn as nn
from torch._inductor import config

config.fallback_random = True
torch.set_grad_enabled(False)
torch.manual_seed(0)


class Model(nn.Module):
    def forward(self, x):
        return torch.clamp(x, min=-0.5, max=0.5)


model = Model()
x = torch.tensor(1)
print("input:", x, x.dtype)


def run_test(model, inputs, backend):
    if backend != "eager":
        model = torch.compile(model, backend=backend)
    torch.manual_seed(0)
    return model(*inputs)


output = run_test(model, [x], "eager")
c_output = run_test(model, [x], "inductor")
print("eager output:", output, output.dtype)
print("inductor output:", c_output, c_output.dtype)
assert output.dtype == c_output.dtype and torch.equal(output, c_output)
