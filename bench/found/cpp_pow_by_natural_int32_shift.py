# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, dynamic=True.
# `2 ** n` (and `1 << n`) of a dynamic size inside a CPU kernel: CppPrinter._print_PowByNatural
# prints `(1 << (ks0))`, a 32-bit int shift (utils/_sympy/printers.py), so at n=31 the kernel adds
# -2147483648 where Python adds 2147483648 (at n=40: 256 for 2**40). Any other base, `3 ** n`,
# fails to compile (NotImplementedError: _print_PowByNatural not implemented for CppPrinter).
# Only the inductor backend.
import torch


def fn(x):
    return torch.arange(2) + 2 ** x.shape[0]


def get_inputs():
    return [torch.ones(31)]


compile_kwargs = {"dynamic": True}
