"""The attention patterns 15 and 20 (DistilBERT style) match `scores.masked_fill(mask == 0,
-inf)`, which keeps every key whose mask value is not zero, but their replacements hand SDPA
the boolean mask `mask == 1`: a float mask holding 2.0, 0.5 or -1.0 (kept in eager) silently
masks those keys in the compiled program."""

import torch


def fn(query, key, value, attn_mask):
    q = query.permute(0, 2, 1, 3)
    k = key.permute(0, 2, 1, 3)
    v = value.permute(0, 2, 1, 3)
    bs, k_len = q.size(0), k.size(-2)
    scores = q @ k.transpose(-2, -1) / 2.0
    fill_value = torch.full((), -float("inf"), dtype=query.dtype)
    attn_mask = (attn_mask == 0).view((bs, 1, 1, k_len)).expand_as(scores)
    return torch.softmax(scores.masked_fill(attn_mask, fill_value), dim=-1) @ v


def get_inputs():
    g = torch.Generator().manual_seed(0)
    qkv = [torch.randn(2, 16, 4, 8, generator=g) for _ in range(3)]
    mask = torch.ones(2, 16)
    mask[:, 12:] = 0.0  # padding
    mask[:, 3] = 2.0  # not zero, not one: eager keeps this key
    return qkv + [mask]
