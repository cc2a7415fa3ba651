# forward calls os._exit(3): the worker exits with code 3 in eager.
import os

import torch


class Model(torch.nn.Module):
    def forward(self, x):
        os._exit(3)


def get_inputs():
    return [torch.randn(3)]
