# Written from the facts of https://github.com/pytorch/pytorch/issues/183771 (not copied).
# ruff: noqa
# Nearest 3-D interpolate of a permuted (channels-last-like) 5-D input: values match but
# eager returns the input's memory layout (strides (420, 1, 84, 14, 2)) while the
# compiled output is contiguous.
import torch
import torch.nn.functional as F


def f(x):
    return F.interpolate(x, size=(5, 6, 7), mode="nearest")


x = torch.randn(2, 5, 2, 3, 2).permute(0, 4, 1, 2, 3)
eager = f(x)
compiled = torch.compile(f, backend="inductor")(x)
print("input_stride:", x.stride())
print("eager_stride:", eager.stride())
print("compiled_stride:", compiled.stride())
print("values_equal:", torch.equal(eager, compiled))
assert eager.stride() == compiled.stride()
