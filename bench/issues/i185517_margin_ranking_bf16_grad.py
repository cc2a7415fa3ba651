# Written from the facts of https://github.com/pytorch/pytorch/issues/185517 (not copied).
# ruff: noqa
# margin_ranking_loss on bfloat16 inputs with the Python float margin 1.7: eager rounds
# the margin to bf16 (1.703125), so the pre-clamp value is exactly 0 and clamp_min's
# backward passes the gradient; the compiled CPU kernel kept 1.7 in float32, the value
# became -0.003125, and the gradient was silently zeroed (forward output identical).
import torch
import torch.nn.functional as F


def loss_fn(a, b, t):
    return F.margin_ranking_loss(a, b, t, margin=1.7)


a = torch.tensor([1.703125, 1.703125], dtype=torch.bfloat16, requires_grad=True)
b = torch.tensor([0.0, 0.0], dtype=torch.bfloat16, requires_grad=True)
t = torch.tensor([1.0, 1.0], dtype=torch.bfloat16)

loss_fn(a, b, t).backward()
ga = a.grad.clone()
a.grad = None
b.grad = None
torch.compile(loss_fn)(a, b, t).backward()
print("eager grad   :", ga)
print("compiled grad:", a.grad)
torch.testing.assert_close(a.grad, ga)
