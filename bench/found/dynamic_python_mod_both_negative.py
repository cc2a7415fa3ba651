# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, dynamic=True.
# `(-n - 7) % -6` on a dynamic size: PythonMod.eval returns the dividend when "p < q and p/q > 0"
# (utils/_sympy/functions.py), right only for non-negative operands; with both negative Python's
# `%` gives -4 at n=3 and the compiled program -10 (the `%` vanishes from the graph), from
# `backend="eager"` on. `(-n - 1) % -n` likewise gives -n - 1 instead of -1.
import torch


def fn(x):
    n = x.shape[0]
    return torch.full((2,), (-n - 7) % -6)


def get_inputs():
    return [torch.ones(3)]


compile_kwargs = {"dynamic": True}
