# ruff: noqa
import torch, torch.nn as nn
from torch._inductor import config

config.fallback_random = True
torch.manual_seed(0)


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pad = torch.nn.ReflectionPad3d(1)

    def forward(self, x):
        return self.pad(x).sum(1)


model = Model().eval().cuda()
x = torch.randn(2, 3, 4, 4, 4).cuda()
inputs = [x]


def run_test(model, inputs, backend):
    if backend != "eager":
        model = torch.compile(model, backend=backend)
    torch.manual_seed(0)
    return model(*inputs)


output = run_test(model, inputs, "eager")
c_output = run_test(model, inputs, "inductor")
print(torch._dynamo.utils.same(output, c_output))
