# Written from the facts of https://github.com/pytorch/pytorch/issues/189518 and its fix
# (pull request 190328: the pointless_cumsum replacement must also cast the fill value the way
# full() does for an integral dtype); not copied.
# ruff: noqa
# cumsum(full(shape, 0.5), dtype=int64): eager casts each 0.5 to 0 before summing (all zeros);
# the replacement multiplies an arange by the float fill value instead.
import torch


def f(x):
    return x * torch.cumsum(torch.full((4, 2), 0.5, dtype=torch.float16), dim=1, dtype=torch.int64)


x = torch.randn(1, 1)
eager = f(x)
compiled = torch.compile(f)(x)
print(eager, compiled)
torch.testing.assert_close(compiled, eager)
