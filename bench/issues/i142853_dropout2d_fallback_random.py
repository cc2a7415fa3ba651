# Written from the facts of https://github.com/pytorch/pytorch/issues/142853 (not copied).
# ruff: noqa
# With fallback_random = True the compiled DropoutNd (training mode) should draw the
# same mask as eager after re-seeding; on CPU it did not (the flag seemed to have the
# opposite effect than on CUDA).
import torch
import torch.nn as nn
from torch._inductor import config

config.fallback_random = True


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.dropout = nn.Dropout2d(p=0.5)

    def forward(self, x):
        torch.manual_seed(0)
        return self.dropout(x)


torch.manual_seed(0)
inputs = torch.randn(1, 3, 256, 256)
model = Model()
output = model(inputs)
c_output = torch.compile(model)(inputs)
print(torch.allclose(output, c_output, 1.3e-6, 1e-5))
print(torch.max(torch.abs(output - c_output)))
