# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A bounded `collections.deque(maxlen=2)` that comes from outside the compiled code (a module
# attribute here; an argument or a global alike): Dynamo's `wrap_listlike`
# (torch/_dynamo/variables/builder.py) builds its `DequeVariable` without `maxlen`, so inside
# the compiled forward `append` never drops the oldest item: a rolling mean over the last two
# values averages all of them (1.0 for 1.5 on the third call), and the deque written back keeps
# them all; with any backend (even "eager": Dynamo's own), fullgraph too.
import collections

import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.hist = collections.deque(maxlen=2)

    def forward(self, x):
        self.hist.append(x)
        return sum(self.hist) / len(self.hist)


def get_calls():
    return [[torch.full((1,), float(i))] for i in range(4)]
