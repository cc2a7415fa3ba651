# An Inductor accuracy bug (relu) next to two traps for a careless reducer, with
#   --fullgraph --config inductor.cpp.inject_relu_bug_TESTING_ONLY=accuracy
# * shrinking the Linear's in_features alone leaves x too wide: eager raises (invalid);
# * dropping a dimension of x makes it 1-d: `scale` then reaches a graph break, which fullgraph
#   turns into a crash at Dynamo.
# Both cuts are smaller; neither is the same failure.
import torch
import torch.nn as nn


def scale(t):
    if t.dim() >= 2:
        return torch.relu(t) * 2.0
    torch._dynamo.graph_break()  # eager ignores it; fullgraph=True fails on it
    return torch.relu(t) * 2.0


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return scale(self.fc(x))


def get_inputs():
    return [torch.randn(4, 8)]
