# Written from the facts of https://github.com/pytorch/pytorch/issues/189801 (not copied).
# ruff: noqa
# ELU of tiny negative inputs is a tiny negative number in eager (expm1); the compiled
# kernel rounded it to exactly 0.0, so a following division by the ELU output gave a
# different infinity/NaN pattern than eager.
import torch
import torch.nn.functional as F


def fn(x):
    y = F.elu(x)
    return y, x / y


x = torch.tensor([-1e-30, -3e-20, -1e-10, -1e-3, 0.5], dtype=torch.float32)
e = fn(x)
c = torch.compile(fn)(x)
print("eager elu   :", e[0])
print("compiled elu:", c[0])
print("eager x/elu   :", e[1])
print("compiled x/elu:", c[1])
torch.testing.assert_close(c[1], e[1], equal_nan=True)
