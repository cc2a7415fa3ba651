# ruff: noqa
# A compiled function with a custom gradient, differentiated with torch.autograd.grad on its
# output after the compiled call: the backward is compiled when the script asks for it.
import torch


class HalfSquare(torch.autograd.Function):
    """0.5 * x**2 with a one-sided gradient (no gradient where x < 0)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return 0.5 * x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * torch.relu(x)


def f(x):
    return HalfSquare.apply(x * 3.0 - 1.0)


x = torch.randn(64, requires_grad=True)
out = torch.compile(f)(x)
(gx,) = torch.autograd.grad(out.sum(), x)
print(gx.sum())
