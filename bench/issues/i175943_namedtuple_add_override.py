# Written from the facts of https://github.com/pytorch/pytorch/issues/175943 (not copied).
# ruff: noqa
# A namedtuple subclass that overrides __add__ (element-wise add instead of tuple
# concatenation); adding two instances inside a compiled function made Dynamo fail with
# an AttributeError, while plain Python runs fine.
from collections import namedtuple

import torch

_Pair = namedtuple("_Pair", ["a", "b"])


class Pair(_Pair):
    def __add__(self, other):
        return Pair(self.a + other.a, self.b + other.b)


def fn(x, y):
    p = Pair(x, y)
    q = p + Pair(y, x)
    return q.a * q.b


x = torch.randn(3)
y = torch.randn(3)
ref = fn(x, y)
out = torch.compile(fn, backend="eager")(x, y)
print(ref, out)
torch.testing.assert_close(out, ref)
