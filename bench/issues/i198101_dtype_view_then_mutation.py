# Written from the facts of https://github.com/pytorch/pytorch/issues/198101 (not copied).
# ruff: noqa
# y is computed from an int32 view of an int64 input, updated in place, then the input
# is mutated and y is returned through an int64 view. Inductor evaluated the read of x
# after the later mutation.
import torch


def fn(x):
    y = x.view(torch.int32) * 2
    y.sub_(-4)
    x[:, 2:5] = 2
    return y.view(torch.int64)


x = torch.arange(-12, 12, dtype=torch.int64).reshape(4, 6)
expected = fn(x.clone())
actual = torch.compile(fn, backend="inductor")(x.clone())
print(expected.flatten().tolist()[:6])
print(actual.flatten().tolist()[:6])
assert torch.equal(expected, actual)
