# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (and 2.6.0).
# Default settings: Inductor's post-grad weight-only-int8 pattern (quantization.py,
# _register_woq_lowerings, registered on every CPU with mkldnn: no freezing needed) rewrites
# F.linear(x, w_int8.to(x.dtype)) * scales into aten._weight_int8pack_mm(x, w, scales), whose
# kernel takes per-output-channel scales only (a 1-d tensor of size out_features). The pattern's
# check looks at the dtypes and devices, never at the scales' shape, so a per-tensor scale (a
# 0-d or one-element tensor, the commonest symmetric int8 scheme), a per-row [M, 1] or a [1, N]
# scale compiles into a call that fails at run time: "_weight_int8pack_mm_cpu : expect scales to
# be 1d tensor with size 8". Eager broadcasts the multiplication; a 2-d input (no reshape around
# the mm) is not matched and runs fine.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.register_buffer("w", torch.randint(-128, 127, (8, 16), generator=g, dtype=torch.int8))
        self.register_buffer("scale", torch.tensor(0.02, dtype=torch.bfloat16))  # per tensor

    def forward(self, x):
        return F.linear(x, self.w.to(x.dtype)) * self.scale


def get_inputs():
    return [torch.randn(2, 8, 16, generator=torch.Generator().manual_seed(1)).to(torch.bfloat16)]
