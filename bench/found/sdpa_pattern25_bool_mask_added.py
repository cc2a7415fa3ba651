"""The attention pattern 25 (T5 style, half-precision q/k/v, softmax in float32) adds the mask
to the scores: with a bool mask that adds 1.0 where it is True (type promotion), but the
replacement hands the bool mask to SDPA unconverted, where it means keep / -inf: keys the
program only shifted by 1 are dropped (the other additive-mask replacements cast it first)."""

import torch


def fn(query, key, value, attn_mask):
    query = query.permute(0, 2, 1, 3)
    key = key.permute(0, 2, 1, 3)
    value = value.permute(0, 2, 1, 3)
    score = torch.matmul(query, key.permute(0, 1, 3, 2))
    return (score + attn_mask).float().softmax(dim=-1).type_as(query).matmul(value)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    qkv = [torch.randn(2, 8, 4, 16, generator=g).to(torch.float16) for _ in range(3)]
    return qkv + [torch.rand(2, 1, 1, 8, generator=g) > 0.5]
