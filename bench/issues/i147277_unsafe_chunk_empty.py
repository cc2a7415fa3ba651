# Written from the facts of https://github.com/pytorch/pytorch/issues/147277 (not copied).
# ruff: noqa
# The function takes a shape tuple and a chunk count as plain Python arguments,
# builds a zero-length tensor and calls unsafe_chunk on it. Eager returns four empty
# tensors; Inductor's decomposition of unsafe_chunk crashed on the empty input.
import torch

print(torch.__version__)


def f(*args):
    shape, n = args
    z = torch.zeros(shape)
    return torch.unsafe_chunk(z, chunks=n, dim=0)


res = f((0,), 4)
print("eager", res)
res = torch.compile(f)((0,), 4)
print("inductor", res)
