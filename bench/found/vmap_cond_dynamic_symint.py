# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# torch.func.vmap over a function that calls torch.cond (a per-row predicate), compiled with
# dynamic shapes: Dynamo's fake-tensor run of cond gets a SymInt among its operands and
# asserts "Cond inputs must be a list of tensors, got [Tensor, SymInt, Tensor]" (even with
# backend="eager"). Static shapes compile and match eager. torchsmith checks it as a program
# (`torchsmith check` this file: crash at dynamo).
import torch


def fn(x, y):
    def per_row(r, s):
        return torch.cond((r > 0).sum() > 1, lambda a, b: a * 2, lambda a, b: a + b, (r, s))

    return torch.func.vmap(per_row)(x, y)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(4, 3, generator=g), torch.randn(4, 3, generator=g)]


compile_kwargs = {"dynamic": True}


if __name__ == "__main__":
    x, y = get_inputs()
    print("eager   ", fn(x, y).sum().item())
    print("compiled", torch.compile(fn, backend="eager", dynamic=True)(x, y).sum().item())
