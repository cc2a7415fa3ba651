# Written from the facts of https://github.com/pytorch/pytorch/issues/143566 (not copied).
# ruff: noqa
# bitwise_left_shift of int64 values by a shift count of 64 (or more): eager returns 0,
# the CPU C++ kernel used the raw << and returned the input again (same root cause as
# the right-shift report #143555).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b):
        return torch.bitwise_left_shift(a, b)


a = torch.tensor([1000, -7, 3], dtype=torch.int64)
b = torch.tensor([64, 64, 65], dtype=torch.int64)
model = Model()
out = model(a, b)
c_out = torch.compile(model)(a, b)
print(out)
print(c_out)
assert torch.equal(out, c_out)
