# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, the export path.
# A custom op with a `Scalar` argument given a Python bool, through torch.export and
# AOTInductor: the proxy-executor call's int arguments are printed with `str(arg)` after an
# `isinstance(arg, int)` test that bools pass (`generate_extern_kernel_args_decl_if_needed`,
# torch/_inductor/codegen/cpp_wrapper_cpu.py), so the package source holds
# `std::array<int64_t, 1>{True}`: a C++ compile error ("'True' was not declared"). Export and
# its decompositions pass; plain torch.compile passes.
import torch


@torch.library.custom_op("torchsmith_found::shift", mutates_args=())
def shift(x: torch.Tensor, s: int | float | bool) -> torch.Tensor:  # s: Scalar
    return x + s


@shift.register_fake
def _(x, s):
    return torch.empty_like(x)


def fn(x):
    return shift(x.sin(), True)


def get_inputs():
    return [torch.zeros(3)]


compile_kwargs = {"backend": "aoti"}
