# Written from the facts of https://github.com/pytorch/pytorch/issues/139789 (not copied).
# ruff: noqa
# A function that mutates its first input is compiled with two independent inputs, then
# called again with two overlapping views of one buffer. The second call must recompile
# (AOTAutograd needs its synthetic-base path for aliased, mutated inputs) but the first
# graph is reused, so the result differs from eager.
import torch


def f(a, b):
    a.mul_(2)
    return a + b


compiled = torch.compile(f, backend="aot_eager")

# first call: no aliasing
print(compiled(torch.ones(4), torch.ones(4)))

# second call: a and b overlap in one storage
buf = torch.ones(8)
got = compiled(buf[:4], buf[2:6])

buf_ref = torch.ones(8)
want = f(buf_ref[:4], buf_ref[2:6])
print("eager   :", want)
print("compiled:", got)
torch.testing.assert_close(got, want)
