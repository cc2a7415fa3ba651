"""The attention pattern 24 skips its parameter check (the factory `_sfdp_extra_check` is
registered instead of its result): a 5-D additive mask with a leading 1 broadcasts the eager
result to [2, 4, 16, 8] (the `view` that follows the add folds it away), but the replacement passes
the 5-D mask to SDPA, which returns [1, 2, 4, 16, 8]: the compiled output has the wrong shape."""

import torch


def fn(query, key, value, mask):
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
    qkv = [torch.randn(2, 4, 16, 8, generator=g) for _ in range(3)]
    return qkv + [torch.randn(1, 2, 4, 16, 16, generator=g)]
