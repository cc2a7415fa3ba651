# Written from the facts of https://github.com/pytorch/pytorch/issues/198095 (not copied).
# ruff: noqa
# Two inputs alias (the second is t0[1:], storage offset 6); the base is mutated in place
# and a view of the aliased input is returned. AOTAutograd regenerates that output from
# the synthetic base with the wrong offset: ta[0] comes back as t0[0] instead of t0[1].
import torch


def fn(t0, ta):
    t0.add_(100)
    return ta[0]


base = torch.arange(24, dtype=torch.float64).reshape(4, 6)
e0 = base.clone()
eager = fn(e0, e0[1:])
c0 = base.clone()
compiled = torch.compile(fn, backend="aot_eager")(c0, c0[1:])
print("eager   :", eager)
print("compiled:", compiled)
torch.testing.assert_close(compiled, eager)
