# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, the export path.
# `torch.full((3,), 1 + 2j) * x` through torch.export and AOTInductor: a complex Scalar is sent
# to runtime dispatch on purpose (torch/_inductor/ir.py), which under AOTInductor is the proxy
# executor, and its argument printer (torch/_inductor/codegen/cpp_wrapper_cpu.py,
# `generate_fallback_kernel_with_runtime_lookup_aot`) asserts a Number argument is an int, float
# or bool: an empty AssertionError while compiling the package (InductorError), though export's
# format has `as_complex`. Eager, `ep.module()`, torch.compile and its C++ wrapper pass.
import torch


def fn(x):
    return torch.full((3,), 1 + 2j) * x


def get_inputs():
    return [torch.tensor([1.0, 2.0, 3.0], dtype=torch.complex64)]


compile_kwargs = {"backend": "aoti"}
