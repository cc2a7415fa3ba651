# Written from the facts of https://github.com/pytorch/pytorch/issues/182012 (not copied).
# ruff: noqa
# Gradient of diagonal_scatter(x, src).sum() with respect to x must be 1 off the
# diagonal and 0 on it; the compiled backward returned all zeros.
import torch


def f(x, src):
    return torch.diagonal_scatter(x, src).sum()


torch.manual_seed(0)
x = torch.randn(8, 8, requires_grad=True)
src = torch.randn(8, requires_grad=True)
f(x, src).backward()

x2 = x.detach().clone().requires_grad_(True)
src2 = src.detach().clone().requires_grad_(True)
torch.compile(f)(x2, src2).backward()
print("eager x.grad row0   :", x.grad[0].tolist())
print("compiled x.grad row0:", x2.grad[0].tolist())
print("max diff x.grad:", (x.grad - x2.grad).abs().max().item())
torch.testing.assert_close(x2.grad, x.grad)
torch.testing.assert_close(src2.grad, src.grad)
