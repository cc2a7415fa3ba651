# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, dynamic=True.
# A float `%` of a dynamic size (`n % 2.5`, `(n * 0.5) % 1.5`) becomes sympy Mod of a float and
# is printed into the C++ kernel as `(static_cast<double>(ks0)) % 2.5` (ExprPrinter._print_Mod
# assumes integers): the kernel fails to compile ("invalid operands of types 'double' and
# 'double' to binary 'operator%'"). Only the inductor backend; the negative-divisor form is
# #197716.
import torch


def fn(z, x):
    return z + x.shape[0] % 2.5


def get_inputs():
    return [torch.zeros(1, dtype=torch.float64), torch.ones(7)]


compile_kwargs = {"dynamic": True}
