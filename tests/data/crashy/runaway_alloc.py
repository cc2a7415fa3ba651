# forward allocates without bound: the worker passes its memory cap and is killed.
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        hoard = []
        while True:
            hoard.append(torch.ones(64, 1024, 1024))  # 256 MiB per step, touched
        return x


def get_inputs():
    return [torch.randn(3)]
