# Written from the facts of https://github.com/pytorch/pytorch/issues/197895 (not copied).
# ruff: noqa
# Floating floor division whose exact quotient sits just below an integer: eager (like
# Python) gives 1.0 // 0.1 == 9.0; Inductor lowers it to floor(a / b) and returns 10.0.
import torch


def bins(a, b):
    return a // b


print("python:", 1.0 // 0.1, 0.5 // 0.1, 6.0 // 0.2)
for dtype in (torch.float32, torch.float64):
    a = torch.tensor([1.0, 0.5, 6.0, 1.0], dtype=dtype)
    b = torch.tensor([0.1, 0.1, 0.2, 1 / 3], dtype=dtype)
    e = bins(a, b)
    torch._dynamo.reset()
    c = torch.compile(bins)(a, b)
    print(dtype, "eager", e.tolist(), "compiled", c.tolist())
    assert torch.equal(e, c), dtype
