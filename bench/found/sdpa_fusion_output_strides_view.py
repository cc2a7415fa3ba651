"""The attention fusion (here pattern 14, BERT style) turns `softmax(q @ k^T / s + m) @ v` over
permuted q/k/v into SDPA, whose output keeps the permuted layout: strides (512, 16, 64, 1) for
eager's contiguous (512, 128, 16, 1). The strides Inductor restores for outputs are recorded
after the joint-graph passes, so SDPA's count as the original ones, and a `.view` in the next
graph (after a graph break; or in the caller) fails where eager runs: "view size is not
compatible with input tensor's size and stride". `pattern_matcher=False` keeps eager's strides."""

import torch


def fn(query, key, value, bias):
    q = query.permute([0, 2, 1, 3])
    k = key.permute([0, 2, 1, 3])
    v = value.permute([0, 2, 1, 3])
    o = (torch.matmul(q, k.transpose(-2, -1)).div(4.0) + bias).softmax(dim=-1).matmul(v)
    torch._dynamo.graph_break()
    return o.view(8, 8, 16)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    qkv = [torch.randn(2, 8, 4, 16, generator=g) for _ in range(3)]
    return qkv + [torch.randn(2, 1, 8, 8, generator=g)]
