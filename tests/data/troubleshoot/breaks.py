# Two graph breaks: a print (line 17) and a data-dependent `if` (line 19): three graphs.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        y = torch.relu(self.fc(x))
        y = y * 2
        print("forward saw", tuple(y.shape))
        y = y - 1
        if y.sum() > 0:
            y = y + 1
        return torch.sin(y)


def get_inputs():
    return [torch.randn(4, 8)]
