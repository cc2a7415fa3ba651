# Written from the facts of https://github.com/pytorch/pytorch/issues/131910 (not copied).
# ruff: noqa
# x.byte() on random floats: negative values give 255/0 in eager but 0 in compiled.
# Maintainers closed it: converting a negative float to an unsigned integer is UB.
import torch

torch.manual_seed(1)


def f(x):
    return x.byte()


compiled_f = torch.compile(f, fullgraph=True)

x = torch.randn(20)
out = f(x)
compile_out = compiled_f(x)
print(out)
print(compile_out)
print(torch.allclose(out, compile_out))
