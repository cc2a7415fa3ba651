# Written from the facts of https://github.com/pytorch/pytorch/issues/143555 (not copied).
# ruff: noqa
# Shifting an int64 right by 64 (a shift count equal to the bit width) must give 0
# as eager does; the CPU C++ kernel returned the input unchanged.
import torch
import torch.nn as nn


class Shift(nn.Module):
    def forward(self, a, b):
        return torch.bitwise_right_shift(a, b)


if __name__ == "__main__":
    a = torch.tensor(1000, dtype=torch.int64)
    b = torch.tensor(64, dtype=torch.int64)
    m = Shift()
    expected = m(a, b)
    got = torch.compile(m)(a, b)
    print("eager   :", expected)
    print("compiled:", got)
    assert torch.equal(expected, got), "compiled shift differs from eager"
