# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: dequantize two uint8 tensors, cat, quantize with the same scale and zero
# point but a narrower range [0, 127]: Inductor's post-grad pass lowers it to a cat of the uint8
# values without clamping (128 steps off); quantizing to int8 instead returns a uint8 tensor
# (a wrong dtype). `_is_input_output_same_scale_zp` (fx_passes/quantization.py) compares scale
# and zero point only, never quant_min, quant_max or dtype. A reshape alike.
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401

qd = torch.ops.quantized_decomposed


def fn(x):
    a = qd.dequantize_per_tensor.default(x, 0.1, 0, 0, 255, torch.uint8)
    b = qd.dequantize_per_tensor.default(x + 1, 0.1, 0, 0, 255, torch.uint8)
    return qd.quantize_per_tensor.default(torch.cat([a, b], 1), 0.1, 0, 0, 127, torch.uint8)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 255, (1, 4, 8, 8), generator=g, dtype=torch.uint8)]
