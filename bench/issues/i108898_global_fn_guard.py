# Written from the facts of https://github.com/pytorch/pytorch/issues/108898 (not copied).
# ruff: noqa
# A compiled function calls a module-level helper; the helper is then rebound to a
# different function. Dynamo installed no guard on the global, so the second call kept
# using the old traced helper.
import torch


def helper(t):
    return torch.sin(t) + 20


def outer(a, b):
    a = helper(a)

    def plus(p, q):
        return p + q

    return plus(a, b)


x = torch.ones(1)
y = torch.ones(1)
opt = torch.compile(outer, fullgraph=True, backend="aot_eager")
print("first :", opt(x, y), "expected", outer(x, y))

helper = lambda t: torch.cos(t)

got, want = opt(x, y), outer(x, y)
print("second:", got, "expected", want)
assert torch.allclose(got, want)
