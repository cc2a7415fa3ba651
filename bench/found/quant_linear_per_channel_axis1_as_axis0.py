# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# With freezing: a linear whose int8 weight is dequantized per channel along axis 1 (the input
# features) is prepacked by Inductor's qlinear weight-prepack pass as if the scales ran along
# axis 0 (`_is_valid_dequant_linear_pattern`, fx_passes/quantization.py, never checks the axis):
# wrong values (off by about 1.6 in outputs of about 4). The conv pass alike (off by 3.0).
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401
import torch.nn as nn
import torch.nn.functional as F

qd = torch.ops.quantized_decomposed


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.register_buffer("wq", torch.randint(-127, 128, (16, 16), generator=g).to(torch.int8))
        self.register_buffer("ws", torch.rand(16, generator=g) * 0.01 + 0.001)
        self.register_buffer("wzp", torch.zeros(16, dtype=torch.int64))

    def forward(self, x):
        q = qd.quantize_per_tensor(x.float(), 0.02, 64, 0, 127, torch.uint8)
        xd = qd.dequantize_per_tensor(q, 0.02, 64, 0, 127, torch.uint8)
        w = qd.dequantize_per_channel(self.wq, self.ws, self.wzp, 1, -128, 127, torch.int8)
        return F.linear(xd, w)


def get_inputs():
    return [torch.rand(4, 16, generator=torch.Generator().manual_seed(1))]


compile_config = {"inductor.freezing": True}
