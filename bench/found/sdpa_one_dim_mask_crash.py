"""An additive attention bias of one dimension (one value per key) broadcasts in
`softmax(q @ k^T / s + bias) @ v`, but the attention fusion (patterns 5, 14, 21, 25) rewrites it
into `scaled_dot_product_attention`, which refuses 1-D masks: `_sfdp_params_check` rejects only
0-d masks, and compiling fails: "Dimension out of range (expected to be in range of [-1, 0],
but got -2)"."""

import torch


def fn(query, key, value, bias):
    w = torch.softmax(query @ key.transpose(-2, -1) / 4.0 + bias, dim=-1)
    return w @ value


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(2, 4, 8, 16, generator=g) for _ in range(3)] + [torch.randn(8, generator=g)]
