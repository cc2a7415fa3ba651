# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (2.6.0 does not match).
# With freezing, Inductor's SmoothQuant pattern (_int_mm_weight_prepack) rewrites
# _int_mm(x, w).to(float) * x_scale * w_scale into a oneDNN qlinear. With per-tensor scales
# held as 0-d tensors (torch.tensor(0.02)), the compile fails in the qlinear lowering:
# "InductorError: AssertionError: <class 'torch._inductor.ir.Constant'>". One-element [1]
# scales compile and match eager; default settings are exact.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.register_buffer("w", torch.randint(-128, 127, (64, 32), generator=g, dtype=torch.int8))
        self.register_buffer("w_scale", torch.tensor(0.004))  # per tensor, 0-d

    def forward(self, x, x_scale):
        return torch._int_mm(x, self.w).to(torch.float32) * x_scale * self.w_scale


def get_inputs():
    g = torch.Generator().manual_seed(1)
    x = torch.randint(-128, 127, (32, 64), generator=g, dtype=torch.int8)
    return [x, torch.tensor(0.02)]


compile_config = {"inductor.freezing": True}
