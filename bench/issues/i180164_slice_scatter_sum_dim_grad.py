# Written from the facts of https://github.com/pytorch/pytorch/issues/180164 (not copied).
# ruff: noqa
# out = slice_scatter(x, y, dim=1, start=0, end=6); return out.sum(dim=1). Forward is
# right but the compiled x.grad was zeroed or mis-scaled (y.grad correct).
import torch


def program(x, y):
    out = torch.slice_scatter(x, y, dim=1, start=0, end=6)
    return out.sum(dim=1)


torch.manual_seed(0)
x = torch.randn(4, 13, 33, requires_grad=True)
y = torch.randn(4, 6, 33, requires_grad=True)
g = torch.randn(4, 33)

program(x, y).backward(g)
gx, gy = x.grad.clone(), y.grad.clone()
x.grad = None
y.grad = None
torch.compile(program, backend="inductor")(x, y).backward(g)
print(
    "max |dx diff|:",
    (x.grad - gx).abs().max().item(),
    " max |dy diff|:",
    (y.grad - gy).abs().max().item(),
)
torch.testing.assert_close(x.grad, gx)
torch.testing.assert_close(y.grad, gy)
