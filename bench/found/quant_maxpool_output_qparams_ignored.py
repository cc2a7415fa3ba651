# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: dequantize -> max_pool2d -> quantize with output quantization parameters
# other than the input's (scale 0.05, zero point 0 for an input at 0.1, 10) is lowered by
# Inductor's post-grad quantization pass to a max pool on the uint8 values, which are returned
# unchanged: up to 117 steps off. `_is_valid_quantized_maxpool2d_optimization_pattern`
# (fx_passes/quantization.py) checks only the getitem index, never that the qparams agree.
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401
import torch.nn.functional as F

qd = torch.ops.quantized_decomposed


def fn(x):
    y = qd.dequantize_per_tensor.default(x, 0.1, 10, 0, 255, torch.uint8)
    y = F.max_pool2d(y, 2)
    return qd.quantize_per_tensor.default(y, 0.05, 0, 0, 255, torch.uint8)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 256, (1, 4, 8, 8), generator=g, dtype=torch.uint8)]
