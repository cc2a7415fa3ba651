# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: a torch.compiler.nested_compile_region called once outside and once inside
# torch.autocast("cpu", dtype=torch.bfloat16) in one compiled frame: the invoke_subgraph HOP's
# caches (_higher_order_ops/invoke_subgraph.py: the proxy-dispatch, autograd-key and fake-tensor
# entries) are keyed by the subgraph identifier only, not the autocast state, so with inputs
# requiring grad the call made outside autocast comes back bfloat16 (off fp64 by 4.7e-2, eager
# 2.4e-6: META-MISMATCH); without grad the call inside autocast comes back float32. From
# aot_eager on (backend="eager" is right).
import torch


@torch.compiler.nested_compile_region
def region(x, w):
    return (x @ w).tanh()


def fn(x, w):
    a = region(x, w)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        b = region(x, w)
    return a, b


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [
        torch.randn(64, 64, generator=g).requires_grad_(),
        torch.randn(64, 64, generator=g).requires_grad_(),
    ]
