"""Lead (eighth pass, read, not run: needs CUDA): Inductor's post-grad `e8m0_rceil_log2`
rewrite (misc_patterns.py, on by default for float32 CUDA inputs) replaces torchao's MX-scale
idiom `(clamp(ceil(log2(x)), -127, 127) + 127).to(uint8)` by reading the float's biased exponent
(plus one when the mantissa is not zero), "equivalent for all positive normal float32 values".
For a subnormal x below 2**-127 the idiom gives 0 (ceil(log2(x)) <= -128, clamped to -127) and
the bit form gives 1 (exponent field 0, mantissa not 0); for a negative x the idiom gives the
uint8 of NaN and the bit form the exponent of |x|. Expected: `check` reports a mismatch at
`inductor` on the subnormal elements on CUDA; CPU never takes the rewrite."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return (torch.clamp(torch.ceil(torch.log2(x)), min=-127, max=127) + 127).to(torch.uint8)


def get_inputs():
    x = torch.tensor([1e-40, 1e-39, 2.0**-130, 1.5, 2.0, 3.0e-38, 1e-45], device="cuda")
    return [x]
