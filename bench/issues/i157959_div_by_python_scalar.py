# Written from the facts of https://github.com/pytorch/pytorch/issues/157959 (not copied).
# ruff: noqa
# Dividing by a Python int attribute (x / 101) compiles to multiplication by the
# reciprocal, so the compiled result differs from eager in the last bit for some
# elements; holding the divisor in a Parameter gives bit-identical results.
import torch
from torch import nn


class Foo(nn.Module):
    def __init__(self, use_parameter: bool) -> None:
        super().__init__()
        self.b = 101
        if use_parameter:
            self.b = nn.Parameter(torch.Tensor([self.b]), requires_grad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x / self.b


torch.manual_seed(42)
x = torch.rand((5, 5))
expected = Foo(False)(x)

for name, m in [
    ("eager int", Foo(False)),
    ("eager param", Foo(True)),
    ("compiled int", torch.compile(Foo(False), fullgraph=True)),
    ("compiled param", torch.compile(Foo(True), fullgraph=True)),
]:
    out = m(x)
    print(
        f"{name:15s} sum diff {(out - expected).sum().item():.3e}  max diff {(out - expected).abs().max().item():.3e}"
    )
