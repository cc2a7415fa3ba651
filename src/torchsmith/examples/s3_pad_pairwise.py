# expect: pass
# The blog's S3 case (pytorch#151198, fixed by #152993): ReflectionPad3d, view, chunk and
# PairwiseDistance. It was a numerical bug on CUDA in PyTorch 2.6; on torch 2.13 CPU it passes.
import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.pad = torch.nn.ReflectionPad3d(1)
        self.dist = torch.nn.PairwiseDistance(p=2)

    def forward(self, x):
        x = self.pad(x)
        x = x.view(x.size(0), -1)
        x = torch.chunk(x, 2, dim=1)
        x = self.dist(x[0], x[1])
        return x


def get_inputs():
    return [torch.randn(2, 3, 4, 4, 4)]
