# topk over fp16 values: ties and near-ties at the k-th place are common, and which index topk
# returns for them is unspecified.
import torch


class Model(torch.nn.Module):
    def forward(self, a):
        return torch.topk(a.half() * 0.01, 5, dim=-1).indices


def get_inputs():
    g = torch.Generator().manual_seed(0)
    torch.randn(128, 32, generator=g)  # the draw the search settled on
    return [torch.randn(128, 64, generator=g)]
