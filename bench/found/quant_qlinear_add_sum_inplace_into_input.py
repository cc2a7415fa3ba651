# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# With freezing (the documented setting for quantized CPU inference): Inductor's quantization
# pass fuses a quantized linear followed by `+ y` into onednn qlinear_pointwise.binary with a
# "sum" post-op, which accumulates IN PLACE into the add's other operand, even when that operand
# is a graph input (here) or a module buffer: the caller's `y` is overwritten with the result
# and the returned tensor is `y` itself; a buffer operand drifts on every call.
# `_qlinear_binary_can_be_inplace` (fx_passes/mkldnn_fusion.py) accepts an InputBuffer or a
# constant, and `_is_valid_quantized_op_binary_optimization_pattern` (fx_passes/quantization.py)
# has no placeholder check (the float path rejects placeholders). The qconv + add sibling
# (`_can_be_inplace`) overwrites a channels_last uint8 input the same way.
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401  (registers quantized_decomposed)
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
        self.b = nn.Parameter(torch.randn(16, generator=g))

    def forward(self, x, y):
        q = qd.quantize_per_tensor(x.float(), 0.02, 64, 0, 127, torch.uint8)
        xd = qd.dequantize_per_tensor(q, 0.02, 64, 0, 127, torch.uint8)
        w = qd.dequantize_per_channel(self.wq, self.ws, self.wzp, 0, -128, 127, torch.int8)
        return F.linear(xd, w, self.b.float()) + y.float()


def get_inputs():
    g = torch.Generator().manual_seed(1)
    return [torch.rand(4, 16, generator=g), torch.randn(4, 16, generator=g)]


compile_config = {"inductor.freezing": True}
