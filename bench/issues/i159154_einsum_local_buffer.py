# Written from the facts of https://github.com/pytorch/pytorch/issues/159154 (not copied).
# ruff: noqa
# einsum -> exp -> einsum (row sum) -> einsum (normalize): the CPU kernel used a local
# buffer sized for one row of 32 although it needs 1*32*32 per row, corrupting memory.
import torch


def softmax_like(xs, ls):
    arr = -torch.einsum("i...,i->i...", xs, ls)
    e = torch.exp(arr)
    total = torch.einsum("i...->i", e)
    return torch.einsum("i,i...->i...", 1 / total, e)


xs = torch.ones(5, 1, 32, 32)
ls = torch.ones(5)
expected = softmax_like(xs, ls)
got = torch.compile(softmax_like, backend="inductor")(xs, ls)
print("max abs diff:", (expected - got).abs().max().item())
torch.testing.assert_close(got, expected)
