# Written from the facts of https://github.com/pytorch/pytorch/issues/196681 (not copied).
# ruff: noqa
# A channels_last GELU, permuted and padded two ways, then multiplied: Inductor's CPU
# 2D-tiled kernel reduces the tail block with a masked reduction but writes it back with
# a full-width vector store, overflowing the output buffer (abort) or overwriting the
# next row (wrong values).
import torch
import torch.nn.functional as F


def f(x):
    v = (x * 0.5) * (torch.erf(x * 0.7071067811865476) + 1)
    a = v.permute(3, 2, 1, 0)
    p = F.pad(a, (0, 0, 0, 58), value=0.5)
    q = F.pad(v, (0, 0, 0, 0, 0, 58), value=0.5)
    return torch.matmul(q, p)


torch.manual_seed(0)
x = torch.randn(1, 8, 66, 66).contiguous(memory_format=torch.channels_last)
ref = f(x)
out = torch.compile(f)(x)
print("max abs diff:", (out - ref).abs().max().item())
torch.testing.assert_close(out, ref, rtol=1e-4, atol=1e-3)
