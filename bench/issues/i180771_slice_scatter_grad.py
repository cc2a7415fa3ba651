# Written from the facts of https://github.com/pytorch/pytorch/issues/180771 (not copied).
# ruff: noqa
# slice_scatter(x, y, dim=0, start=0, end=2).sum(): d/dx is 0 on the overwritten slots
# and 1 elsewhere; the compiled backward zeroed the pass-through slots too.
import torch

x = torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0], requires_grad=True)
y = torch.tensor([10.0, 20.0], requires_grad=True)


def f(x, y):
    return torch.slice_scatter(x, y, dim=0, start=0, end=2).sum()


f(x, y).backward()
print("eager x.grad   :", x.grad)

x2 = x.detach().clone().requires_grad_(True)
y2 = y.detach().clone().requires_grad_(True)
torch._dynamo.reset()
fn = torch.compile(f, backend="inductor")
fn(x2, y2).backward()
print("compiled x.grad:", x2.grad)
assert torch.equal(x.grad, x2.grad)
