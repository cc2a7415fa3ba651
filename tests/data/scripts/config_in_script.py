# ruff: noqa
# The script sets the Inductor config that makes it fail (here: a planted fault).
import torch
import torch._inductor.config

torch._inductor.config.cpp.inject_relu_bug_TESTING_ONLY = "accuracy"


def f(x):
    return torch.relu(x) + 2


x = torch.randn(16)
expected = f(x)
got = torch.compile(f)(x)
assert torch.allclose(expected, got), (expected - got).abs().max()
