"""A custom op that mutates its first argument in place, called with a second argument that is
a pointwise function of the first (`y = x * 2`, not yet computed when the op is lowered):
Inductor copies `y` for the op's stride constraint (`require_strides` -> `copy_input`), so the
original `y` stays pending, and the op's mutation of `x` realizes it only after the op: every
other use of `y` reads the mutated `x` (2 * (x + 2x) + 1 instead of 2x + 1). aot_eager is right."""

import torch


@torch.library.custom_op("tsfound::add_into", mutates_args=("x",))
def add_into(x: torch.Tensor, y: torch.Tensor) -> None:
    x.add_(y)


@add_into.register_fake
def _(x, y):
    return None


def fn(x):
    y = x * 2
    torch.ops.tsfound.add_into(x, y)
    return y + 1


def get_inputs():
    return [torch.arange(8, dtype=torch.float32)]
