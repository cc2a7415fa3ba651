# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A custom op that mutates its argument, called on a slice `x[1:3]` of an input that is itself a
# view with a storage offset (`cache[2:]`, a KV-cache row block): auto_functionalized_v2
# records the slice as `start = x_slice.storage_offset() // stride` (`try_use_slice`,
# torch/_higher_order_ops/auto_functionalize.py), the absolute offset, and regenerates it
# relative to the input: rows 3..4 are written instead of 1..2 (here the row sums [0, 4, 4, 0]
# come out [0, 0, 0, 4], and the input holds the same wrong rows), silently; a slice past the
# end comes out empty and the op fails. `aot_eager` already: functionalization's. With
# `enable_auto_functionalized_v2=False` it is right.
import torch


@torch.library.custom_op("torchsmith_found::add_one_", mutates_args=("x",))
def add_one_(x: torch.Tensor) -> None:
    x.add_(1)


def fn(x):
    add_one_(x[1:3])
    return x.sum(1)


def get_inputs():
    return [torch.zeros(6, 4)[2:]]  # a view with storage offset 8
