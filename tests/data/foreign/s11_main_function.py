# ruff: noqa
import torch
import torch.nn as nn


class Repro(nn.Module):
    def forward(self, x, idx):
        return x.index_select(0, idx).sum()


def main():
    torch.manual_seed(0)
    x = torch.randn(10, 3).cuda()
    idx = torch.tensor([0, 2, 4]).cuda()
    m = Repro()
    expected = m(x, idx)
    actual = torch.compile(m)(x, idx)
    print(expected, actual)


if __name__ == "__main__":
    main()
