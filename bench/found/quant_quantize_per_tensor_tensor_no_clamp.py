# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: quantized_decomposed.quantize_per_tensor.tensor (scale and zero point as
# tensors) with a range narrower than the dtype's ([0, 127] in uint8): Inductor's CPU lowering
# (lowering.py: fma + round_to_int) never clamps to [quant_min, quant_max], so 100.0 at scale
# 0.5, zero point 1 gives 201 where eager gives 127; it also rounds after adding the zero point
# (0.5 -> 2, eager 1, half to even). The .default overload (float scale) is right. PR #171699
# ("fuse round and to in quant") removed the min/max as duplicates of the cast's range.
import torch
import torch.ao.quantization.fx._decomposed  # noqa: F401

qd = torch.ops.quantized_decomposed


def fn(x, s, z):
    return qd.quantize_per_tensor.tensor(x.float(), s.float(), z, 0, 127, torch.uint8)


def get_inputs():
    x = torch.tensor([-3.0, -1.0, 0.25, 0.75, 1.25, 2.5, 3.0, 10.0, 100.0] * 3)
    return [x, torch.tensor(0.5), torch.tensor(1)]
