# Written from the facts of https://github.com/pytorch/pytorch/issues/194706 (not copied).
# ruff: noqa
# Forward-mode Jacobian (torch.func.jacfwd) of a float16 function with prod, sum and two
# mm calls, compiled with Inductor on CPU: compilation failed while eager works.
import torch


def f(x):
    a = torch.prod(x) + x
    b = torch.sum(x) + x
    return torch.sum(torch.mm(torch.mm(a, b), torch.sum(x) + x))


x = (torch.arange(1, 10, dtype=torch.float16) / 10).reshape(3, 3)
ref = torch.func.jacfwd(f)(x)
out = torch.compile(torch.func.jacfwd(f))(x)
print(ref)
print(out)
torch.testing.assert_close(out, ref, rtol=1e-2, atol=1e-2)
