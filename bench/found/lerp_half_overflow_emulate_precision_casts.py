# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, with
# `emulate_precision_casts=True` (the setting users turn on for eager's low-precision numerics).
# `torch.lerp(a, b, 0.3)` in float16 with a = -60000, b = 60000: eager computes `end - start`
# in float32 (ATen's Lerp.h, opmath) and returns -24000 (the float64 run agrees); Inductor's
# `_lerp_scalar` decomposition (torch/_inductor/decomposition.py) computes `end - start` in
# float16, which overflows, and with the casts emulated the result is inf. Default Inductor
# keeps the fused difference in float32 (right); the `aot_eager_decomp_partition` rung shows
# the same inf under any setting.
import torch


def fn(a, b):
    return torch.lerp(a, b, 0.3)


def get_inputs():
    a = torch.tensor([-60000.0, -40000.0, 1.0], dtype=torch.float16)
    return [a, -a]


compile_config = {"inductor.emulate_precision_casts": True}
