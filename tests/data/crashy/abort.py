# forward calls abort(): the worker dies by SIGABRT in eager.
import os

import torch


class Model(torch.nn.Module):
    def forward(self, x):
        os.abort()


def get_inputs():
    return [torch.randn(3)]
