"""A custom op mutating a dtype view of a clone (`y = x.clone(); bump_(y.view(torch.int32))`)
must leave `x` alone. Inductor's post-grad `fix_auto_functionalized_dtype_views` drops the clone
because the view shares storage with a graph input, without checking that the program mutates
that input: the op writes into the caller's `x`, and `x + 0` reads the bumped bits (doubled values). The same op
on `y` itself (no dtype view) is right."""

import torch


@torch.library.custom_op("tsfound::bump_bits", mutates_args=("x",))
def bump_bits(x: torch.Tensor) -> None:
    x.add_(1 << 23)  # on float32 bits: one more in the exponent, the value doubled


@bump_bits.register_fake
def _(x):
    return None


def fn(x):
    y = x.clone()
    torch.ops.tsfound.bump_bits(y.view(torch.int32))
    return x + 0, y


def get_inputs():
    return [torch.arange(1.0, 5.0)]
