# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# With freezing: a quantized conv_transpose2d (int8 weight dequantized per channel along its
# output axis 1, a uint8-quantized activation) is matched by Inductor's qconv weight-prepack
# pattern as an ordinary convolution: `is_transposed` and `output_padding` are matched but never
# checked (_is_valid_dequant_conv_pattern, fx_passes/quantization.py), so the compiled module
# returns a [1, 4, 4, 4] convolution where eager returns the [1, 4, 8, 8] transposed one
# (META-MISMATCH); with stride 2 and output_padding 1 the compile fails in oneDNN.
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401
import torch.nn as nn
import torch.nn.functional as F

qd = torch.ops.quantized_decomposed


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.register_buffer(
            "wq", torch.randint(-127, 128, (4, 4, 3, 3), generator=g).to(torch.int8)
        )
        self.register_buffer("ws", torch.rand(4, generator=g) * 0.01 + 0.001)
        self.register_buffer("wzp", torch.zeros(4, dtype=torch.int64))

    def forward(self, x):
        q = qd.quantize_per_tensor(x.float(), 0.02, 64, 0, 127, torch.uint8)
        xd = qd.dequantize_per_tensor(q, 0.02, 64, 0, 127, torch.uint8)
        w = qd.dequantize_per_channel(self.wq, self.ws, self.wzp, 1, -128, 127, torch.int8)
        return F.conv_transpose2d(xd, w)


def get_inputs():
    return [torch.rand(1, 4, 6, 6, generator=torch.Generator().manual_seed(1))]


compile_config = {"inductor.freezing": True}
