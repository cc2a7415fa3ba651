# Written from the facts of https://github.com/pytorch/pytorch/issues/144607 (not copied).
# ruff: noqa
# A compiled x * 2 called on "meta" tensors of two different shapes: the first call
# works, the second (which recompiles with dynamic shapes) failed inside Inductor.
import torch


@torch.compile
def foobar(x):
    return x * 2


def test(device):
    a = foobar(torch.empty((1, 16, 128, 128), device=device))
    b = foobar(torch.empty((1, 32, 64, 64), device=device))
    print(device, a.shape, b.shape)


test("cpu")
print("cpu ok")
test("meta")
print("meta ok")
