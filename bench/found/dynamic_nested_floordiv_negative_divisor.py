# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, dynamic=True.
# The ceiling-division idiom `-(h // -4)` with `h = n // 2` on a dynamic size: FloorDiv.eval
# rewrites FloorDiv(FloorDiv(a, b), c) to FloorDiv(a, b*c) (utils/_sympy/functions.py), valid
# only for c > 0: at n=9 Python gives 1, Inductor 2 (as a shape: `new_zeros(-(h // -4), 3)` gets
# the wrong row count, and under aot_eager "Guard failed on the same frame it was created").
import torch


def fn(x):
    h = x.shape[0] // 2
    return torch.full((2,), -(h // -4))


def get_inputs():
    return [torch.ones(9)]


compile_kwargs = {"dynamic": True}
