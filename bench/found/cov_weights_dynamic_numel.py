# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# torch.cov with aweights (or fweights) cannot be traced with dynamic shapes: the fake-tensor
# run of Dynamo (and of torch.export) raises "Cannot call numel() on tensor with symbolic
# sizes/strides" (the C++ implementation reads numel() of the weights, not sym_numel()).
# Eager passes; torch.cov without weights compiles dynamically. Even backend="eager" fails.
# torchsmith checks it as a program (`torchsmith check` this file: crash at dynamo).
import torch


def fn(x, w):
    return torch.cov(x, aweights=w)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(2, 3, generator=g), torch.rand(3, generator=g) + 0.1]


compile_kwargs = {"dynamic": True}


if __name__ == "__main__":
    x, w = get_inputs()
    print("eager   ", fn(x, w))
    print("compiled", torch.compile(fn, dynamic=True, backend="eager")(x, w))
