# ruff: noqa
import torch
import torch.nn as nn
import torch._dynamo

torch._dynamo.config.suppress_errors = False


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 4, 3)

    def forward(self, x):
        return self.conv(x).var(dim=-1)


model = Model().double().cuda()
x = torch.randn(2, 4, 10, dtype=torch.float64).cuda()
opt = torch._dynamo.optimize("inductor")(model)
print(torch.allclose(model(x), opt(x)))
