"""The attention patterns 18 and 19 (GPT-2 style) fill masked scores with the finite
`torch.finfo(dtype).min`, as Hugging Face does on purpose so that a fully masked query row stays
finite (softmax of equal values: the mean of v). The replacements turn the fill into -inf, and
SDPA returns 0 for such a row: the compiled output differs from eager on every fully masked row."""

import torch


def fn(query, key, value, causal_mask):
    q = query.permute([0, 2, 1, 3])
    k = key.permute([0, 2, 1, 3])
    v = value.permute([0, 2, 1, 3])
    attn_weights = torch.matmul(q, k.transpose(-2, -1))
    inv_scale = torch.full([], value.size(-1) ** 0.5, dtype=attn_weights.dtype)
    attn_weights = attn_weights.div(inv_scale)
    mask_value = torch.full([], torch.finfo(attn_weights.dtype).min, dtype=attn_weights.dtype)
    attn_weights = torch.where(causal_mask, attn_weights, mask_value)
    return (attn_weights.softmax(dim=-1) @ v), k, v


def get_inputs():
    g = torch.Generator().manual_seed(0)
    qkv = [torch.randn(2, 16, 4, 8, generator=g) for _ in range(3)]
    mask = torch.ones(16, 16).tril().bool().view(1, 1, 16, 16).repeat(2, 1, 1, 1)
    mask[1, :, :3, :] = False  # left padding: the first three rows of sample 1 see no key
    return qkv + [mask]
