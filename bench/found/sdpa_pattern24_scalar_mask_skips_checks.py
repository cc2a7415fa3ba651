"""The attention pattern 24 (MBart-style bmm, additive mask, softmax, bmm) is registered with
the factory `_sfdp_extra_check` instead of `_sfdp_extra_check()` (fuse_attention.py), so its
parameter check never runs: a Python-scalar additive mask (softmax is shift-invariant: a valid
program) reaches the replacement, which calls `attn_mask.to(...)` on a float: compile error."""

import torch


def fn(query, key, value, mask: float):
    bs, n_head, seq_len, head_size = query.shape
    q = query.view(bs * n_head, -1, head_size)
    k = key.reshape(bs * n_head, -1, head_size)
    v = value.reshape(bs * n_head, -1, head_size)
    w = torch.bmm(q, k.transpose(1, 2))
    w = w.view(bs, n_head, seq_len, -1) + mask
    w = w.view(bs * n_head, seq_len, -1)
    w = torch.nn.functional.softmax(w, dim=-1)
    return torch.bmm(w, v).view(bs, n_head, seq_len, head_size)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(2, 4, 16, 8, generator=g) for _ in range(3)] + [2.0]
