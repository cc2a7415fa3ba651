# A form of pytorch/pytorch#196165 (open): with `efficient_conv_bn_eval_fx_passes`, the pass
# that folds an eval-mode BatchNorm into the preceding convolution reads the convolution's
# arguments from its positional args only, so `F.conv2d(x, w, bias=b, padding=1)` loses its
# bias and padding: wrong values, or (here) a wrong shape. Written from the facts.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.w = nn.Parameter(torch.randn(3, 2, 3, 3, generator=g))
        self.b = nn.Parameter(torch.randn(3, generator=g))
        self.bn = nn.BatchNorm2d(3)

    def forward(self, x):
        return self.bn(F.conv2d(x, self.w, bias=self.b, padding=1))


def get_inputs():
    return [torch.randn(1, 2, 5, 5, generator=torch.Generator().manual_seed(1))]


compile_config = {"inductor.efficient_conv_bn_eval_fx_passes": True}
