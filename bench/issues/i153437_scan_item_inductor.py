# pytorch/pytorch#153437 (open): torch._higher_order_ops.scan fails to compile under Inductor.
# Inductor's post-grad pass rewrites scan into a while_loop whose body reads the loop index
# with .item(); without dynamo.capture_scalar_outputs the fake-tensor run raises
# DataDependentOutputException (aten._local_scalar_dense). The issue (2025) saw a graph break;
# on 2.13.0 CPU the default torch.compile (here) raises InductorError to the caller, while
# fullgraph=True compiles and runs correctly (checked 2026-11-26).
import torch
from torch._higher_order_ops import scan


def fn(init, xs):
    def step(carry, x):
        nxt = carry * 0.5 + x
        return nxt, nxt.sin()

    return scan(step, init, xs)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(3, generator=g), torch.randn(5, 3, generator=g)]
