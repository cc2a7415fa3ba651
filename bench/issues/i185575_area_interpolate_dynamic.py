# Written from the facts of https://github.com/pytorch/pytorch/issues/185575 (Inductor's
# _adaptive_avg_pool2d lowering branches on a symbolic window size under dynamic=True); not
# copied. Found again by torchsmith's opinfo family (interpolate, mode='area', scale 1.7).
# ruff: noqa
import torch


def f(x):
    return torch.nn.functional.interpolate(x, scale_factor=1.7, mode="area")


x = torch.randn(2, 3, 4, 4)
eager = f(x)
compiled = torch.compile(f, dynamic=True)(x)  # LoweringException: cannot determine truth value
print(eager.shape, compiled.shape)
torch.testing.assert_close(compiled, eager)
