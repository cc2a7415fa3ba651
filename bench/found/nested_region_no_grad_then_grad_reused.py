# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: a torch.compiler.nested_compile_region called first under torch.no_grad()
# (a teacher/EMA pass), then again with grad on, in one compiled frame: the reused call's
# output is rebuilt from the first call's metadata (requires_grad=False; variables/
# invoke_subgraph.py stamp_out_subgraph, and get_non_differentiable_indices in
# _higher_order_ops/invoke_subgraph.py reads the body's example values recorded under no_grad),
# so its gradient contribution is dropped: x.grad and w.grad off fp64 by 4.3 and 3.1 (eager
# 6e-7). is_reusable() never compares the grad mode.
import torch


@torch.compiler.nested_compile_region
def region(x, w):
    return (x @ w).tanh()


def fn(x, w):
    with torch.no_grad():
        ema = region(x, w)
    out = region(x, w)
    return out.sum() + (x * w).sum() + 0 * ema.sum()


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [
        torch.randn(8, 8, generator=g).requires_grad_(),
        torch.randn(8, 8, generator=g).requires_grad_(),
    ]
