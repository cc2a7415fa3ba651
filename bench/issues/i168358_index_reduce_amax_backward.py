# Written from the facts of https://github.com/pytorch/pytorch/issues/168358 (not copied).
# ruff: noqa
# index_reduce with reduce="amax" inside a compiled function, followed by backward:
# eager gradients are finite, the compiled backward produced NaN.
import torch


def f(src, index):
    out = torch.zeros(4, 3).index_reduce(0, index, src, "amax", include_self=False)
    return (out * out).sum()


torch.manual_seed(0)
src = torch.randn(6, 3, requires_grad=True)
index = torch.tensor([0, 1, 1, 2, 3, 3])

loss = f(src, index)
loss.backward()
g_eager = src.grad.clone()

src.grad = None
loss_c = torch.compile(f)(src, index)
loss_c.backward()
g_comp = src.grad.clone()
print("loss eager/compiled:", loss.item(), loss_c.item())
print(
    "eager grad has nan:",
    g_eager.isnan().any().item(),
    " compiled grad has nan:",
    g_comp.isnan().any().item(),
)
torch.testing.assert_close(g_comp, g_eager)
