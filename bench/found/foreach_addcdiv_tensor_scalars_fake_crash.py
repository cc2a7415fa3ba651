# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: torch._foreach_addcdiv (and _foreach_addcdiv_, _foreach_addcmul) with its
# scalars given as a 1-D CPU tensor (the documented `.Tensor` overload) cannot be traced: the
# overload has only a CompositeExplicitAutograd kernel, which reads the scalars' values, and no
# meta registration, so fake-tensor propagation raises "Expected scalars to be on CPU, got meta
# instead" (a hard error, not a graph break). Reached from the public functional optimizers:
# torch.optim.adam.adam / nadam.nadam with foreach=True, capturable=False build step_size with
# _stack_if_compiling and pass it here.
import torch


def fn(a0, a1, b0, b1, c0, c1, s):
    return torch._foreach_addcdiv([a0, a1], [b0, b1], [c0, c1], s)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [
        torch.randn(3, generator=g),
        torch.randn(2, generator=g),
        torch.randn(3, generator=g),
        torch.randn(2, generator=g),
        torch.rand(3, generator=g) + 0.5,
        torch.rand(2, generator=g) + 0.5,
        torch.tensor([0.1, 0.2]),
    ]
