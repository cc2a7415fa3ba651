# Written from the facts of https://github.com/pytorch/pytorch/issues/185610 (not copied).
# ruff: noqa
# torch.minimum(-0.0, 0.0) in bfloat16: eager returns -0.0 (0x8000), the compiled
# kernel returned +0.0 (0x0000); the sign shows up through copysign/signbit/division.
import torch


def fn(x, y):
    return torch.minimum(x, y)


x = torch.tensor([-0.0], dtype=torch.bfloat16)
y = torch.tensor([0.0], dtype=torch.bfloat16)
eager_out = fn(x, y)
inductor_out = torch.compile(fn)(x, y)
print(f"Eager:    {eager_out.item()} (hex {eager_out.view(torch.int16).item() & 0xFFFF:#06x})")
print(
    f"Inductor: {inductor_out.item()} (hex {inductor_out.view(torch.int16).item() & 0xFFFF:#06x})"
)
assert torch.signbit(eager_out).item() == torch.signbit(inductor_out).item()
