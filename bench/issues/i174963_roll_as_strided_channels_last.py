# Written from the facts of https://github.com/pytorch/pytorch/issues/174963 (not copied).
# ruff: noqa
# roll along dim 0 of a channels_last int64 tensor, then as_strided((5, 10), (4, 1)) on
# the result: eager's roll keeps channels_last so as_strided reads that storage order;
# the compiled roll produced a different layout, giving different values.
import torch


def func(x):
    x = torch.roll(x, shifts=-1, dims=0)
    return torch.as_strided(x, (5, 10), (4, 1), 0)


x1 = torch.arange(100).reshape(2, 5, 2, 5).to(memory_format=torch.channels_last)
x2 = torch.arange(100).reshape(2, 5, 2, 5).to(memory_format=torch.channels_last)
out1 = func(x1)
out2 = torch.compile(func, backend="inductor")(x2)
print(f"{out1=}")
print(f"{out2=}")
torch.testing.assert_close(out1, out2, equal_nan=True)
