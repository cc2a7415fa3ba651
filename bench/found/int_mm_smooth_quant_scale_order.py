# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (2.6.0 does not match).
# With freezing (the CPU inference recipe), Inductor's SmoothQuant pattern (quantization.py,
# _int_mm_weight_prepack, PR #139595) turns _int_mm(x, w).to(float) * x_scale * w_scale into a
# oneDNN qlinear with w_scale as the weight's per-output-channel scale. It decides which factor
# is which by position alone: written the other way round, * w_scale * x_scale (the same
# product), the per-row activation scale [M, 1] is taken as the weight's scale. With M == N the
# compiled result is silently wrong (off by 50 %); with M != N the kernel reads N scales from
# an M-element tensor, out of bounds (values near 1e27 in one run). Default settings are exact.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.register_buffer("w", torch.randint(-128, 127, (64, 32), generator=g, dtype=torch.int8))
        self.register_buffer("w_scale", torch.rand(32, generator=g) * 0.01 + 0.001)  # per channel

    def forward(self, x, x_scale):
        y = torch._int_mm(x, self.w).to(torch.float32)
        return y * self.w_scale * x_scale  # the weight's scale first, then the per-row one


def get_inputs():
    g = torch.Generator().manual_seed(1)
    x = torch.randint(-128, 127, (32, 64), generator=g, dtype=torch.int8)
    return [x, torch.rand(32, 1, generator=g) * 0.01 + 0.001]  # per row (token)


compile_config = {"inductor.freezing": True}
