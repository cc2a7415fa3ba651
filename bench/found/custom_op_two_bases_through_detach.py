# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A custom op mutating two arguments that are disjoint rows of one tensor, one reached through
# `.detach()` (`op_(x[0], x.detach()[1])`): auto_functionalized_v2 deduplicates the arguments'
# bases by Python object (`base._cdata`), not by storage
# (`_do_auto_functionalize_v2_for_generic_mutable_operator`), so `x` and `x.detach()` become two
# bases, each cloned, mutated and written back: the second write-back restores row 0, and the
# first row's update is lost (row sums [4, 40, 0] in eager, [0, 40, 0] compiled), silently.
# `aot_eager` already; `enable_auto_functionalized_v2=False` is right.
import torch


@torch.library.custom_op("torchsmith_found::inc_both_", mutates_args=("a", "b"))
def inc_both_(a: torch.Tensor, b: torch.Tensor) -> None:
    a.add_(1)
    b.add_(10)


def fn(x):
    y = x * 1
    inc_both_(y[0], y.detach()[1])
    return y.sum(1)


def get_inputs():
    return [torch.zeros(3, 4)]
