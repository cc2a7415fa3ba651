# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, with
# `cpp_wrapper=True`. A custom op with a `Scalar` argument given a Python bool, whose result
# goes through the C++ wrapper's Python-callback path (the op returns `Tensor[]`):
# `generate_py_arg` (torch/_inductor/codegen/cpp_wrapper_cpu.py) tests `isinstance(s, int)`
# before `bool`, so it emits `PyLong_FromLongLong(True)`: a C++ compile error ("'True' was not
# declared in this scope"). Through the boxed path (an op returning one Tensor) the bool is
# printed as `c10::IValue(1)` and arrives as the int 1 (a kernel that tells bool from int
# computes something else). The Python wrapper passes `True`.
import torch


@torch.library.custom_op("torchsmith_found::shift_pair", mutates_args=())
def shift_pair(x: torch.Tensor, s: int | float | bool) -> list[torch.Tensor]:  # s: Scalar
    return [x + s, x * s]


@shift_pair.register_fake
def _(x, s):
    return [torch.empty_like(x), torch.empty_like(x)]


def fn(x):
    a, b = shift_pair(x.sin(), True)
    return a + b


def get_inputs():
    return [torch.zeros(3)]


compile_config = {"inductor.cpp_wrapper": True}
