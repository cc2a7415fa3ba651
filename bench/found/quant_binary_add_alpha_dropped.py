# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# With freezing: Inductor's quantization pass fuses a quantized linear (or conv) followed by
# torch.add(..., other, alpha=3.0) into a onednn binary post-op and hard-codes the sum's scale
# to 1.0 (`PostOpAttr("sum", 1.0, ...)` in _register_qlinear_binary_fusion and
# _register_qconv_binary_fusion, fx_passes/quantization.py): the result is computed as alpha=1.
# The pattern matcher ignores the extra keyword; the float mkldnn path checks alpha.
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
        self.b = nn.Parameter(torch.randn(16, generator=g))

    def forward(self, x, y):
        q = qd.quantize_per_tensor(x.float(), 0.02, 64, 0, 127, torch.uint8)
        xd = qd.dequantize_per_tensor(q, 0.02, 64, 0, 127, torch.uint8)
        w = qd.dequantize_per_channel(self.wq, self.ws, self.wzp, 0, -128, 127, torch.int8)
        return torch.add(F.linear(xd, w, self.b.float()), torch.sin(y.float()), alpha=3.0)


def get_inputs():
    g = torch.Generator().manual_seed(1)
    return [torch.rand(4, 16, generator=g), torch.randn(4, 16, generator=g)]


compile_config = {"inductor.freezing": True}
