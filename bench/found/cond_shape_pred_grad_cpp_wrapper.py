# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# torch.cond on a size predicate (x.shape[0] > 4) under dynamic shapes, on inputs that require
# grad, with inductor.cpp_wrapper: the C++ wrapper cannot bind the relational SymBool the
# backward graph receives as an input: "AssertionError: Unknown value type: <class
# 'sympy.core.relational.StrictGreaterThan'>" (CppWrapperCpu.codegen_input_symbol_assignment).
# The Python wrapper runs it; so does the C++ wrapper with static shapes or without gradients.
# torchsmith checks it as a program (`torchsmith check` this file: crash at inductor).
import torch


def fn(x, y):
    return torch.cond(
        x.shape[0] > 4, lambda a, b: (a + b).sin(), lambda a, b: (a - b).cos(), (x, y)
    )


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(5, 3, generator=g), torch.randn(5, 3, generator=g)]


compile_kwargs = {"dynamic": True}
compile_config = {"inductor.cpp_wrapper": True}
check_options = {"grad": True}


if __name__ == "__main__":
    torch._inductor.config.cpp_wrapper = True
    x, y = (t.requires_grad_() for t in get_inputs())
    out = torch.compile(fn, dynamic=True)(x, y)  # raises
    out.sum().backward()
