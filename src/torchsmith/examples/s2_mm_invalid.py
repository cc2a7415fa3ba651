# expect: invalid
# The blog's S2 case: an invalid program. torch.mm needs [a, b] @ [b, c]; both inputs are
# [2, 10]. torchsmith must call it invalid (not a compiler bug) and name the op and shapes.
import torch


class MatrixModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mm_layer = torch.nn.Linear(10, 10)

    def forward(self, x1, inp):
        v1 = torch.mm(x1, inp)  # constraint 1: row-column alignment
        v2 = v1 + inp  # constraint 2: same shape or broadcastable
        return v2


x1 = torch.randn(2, 10)
inp = torch.randn(2, 10)
inputs = [x1, inp]
