# Written from the facts of https://github.com/pytorch/pytorch/issues/198057 (not copied).
# ruff: noqa
# Float remainder on an 8-element tensor takes the vectorized CPU path, which computes
# a - floor(a / b) * b: an infinite divisor gives NaN instead of the dividend, and a huge
# quotient (1e20 % 3) gives 0 instead of 2.
import torch

INF = float("inf")
a = torch.tensor([5.5, -5.5, 0.0, 1e20, 2147483648.0, 7.0, 1.0, -0.0])
b = torch.tensor([INF, -INF, INF, 3.0, 3.0, 0.7, 0.1, 1.0])


def rem(a, b):
    return torch.remainder(a, b)


eager = rem(a, b)
torch._dynamo.reset()
compiled = torch.compile(rem)(a, b)
print("eager   ", eager.tolist())
print("compiled", compiled.tolist())
torch.testing.assert_close(compiled, eager, equal_nan=True)
