# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# freezing: an integer matmul with a constant (buffer) weight fails to compile: "reorder_linear_
# weight: weight's dtype should be float ... _mkl_reorder_linear_weight". `_is_packable_linear`
# (mkldnn_fusion.py) rejects float64 only (the fix of #121175) and never asks for a floating
# dtype, so int64 (and int32) weights are packed for MKL. Without freezing it equals eager.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.register_buffer("w", torch.randint(-5, 5, (16, 8), generator=g))

    def forward(self, x):
        return x @ self.w


def get_inputs():
    return [torch.randint(-5, 5, (4, 16), generator=torch.Generator().manual_seed(1))]


compile_config = {"inductor.freezing": True}
