# expect: pass
# A small MLP with relu: run it with
#   torchsmith check --config inductor.cpp.inject_relu_bug_TESTING_ONLY=accuracy
# to see a real (injected) Inductor accuracy bug found, localized and explained.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, width: int = 16):
        super().__init__()
        self.fc1 = nn.Linear(width, width)
        self.fc2 = nn.Linear(width, 4)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def get_init_inputs():
    return [16]


def get_inputs():
    return [torch.randn(8, 16)]
