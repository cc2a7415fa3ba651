# Written from the facts of https://github.com/pytorch/pytorch/issues/141559 (not copied).
# ruff: noqa
# (a > 1) & (b > 1) where a is int64 and b is uint8: the vectorized CPU kernel combined
# masks of different element types (VecMask<long,2> & VecMask<unsigned char,1>) and
# failed to compile.
import torch


def merge(a, b):
    return (a > 1) & (b > 1)


a = torch.ones(10, dtype=torch.int64)
b = torch.ones(10, dtype=torch.uint8)
merge_c = torch.compile(merge)
print(merge(a, b))
print(merge_c(a, b))
