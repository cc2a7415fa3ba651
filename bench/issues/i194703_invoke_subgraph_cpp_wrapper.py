# pytorch/pytorch#194703 (pull request, closed): CppWrapperCpu.codegen_invoke_subgraph was a
# bare NotImplementedError, so a torch.compiler.nested_compile_region under the C++ wrapper
# (inductor.cpp_wrapper, or AOTInductor) fails at codegen: "codegen invoke_subgraph is not
# implemented for cpp wrapper". Still so in 2.13.0. Found by torchsmith's export family (hop
# base, compile path with cpp_wrapper).
import torch


@torch.compiler.nested_compile_region
def block(a, b):
    return torch.sin(a) * b


def fn(x, y):
    return block(x, y) + block(y, x)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(4, 3, generator=g), torch.randn(4, 3, generator=g)]


compile_config = {"inductor.cpp_wrapper": True}
