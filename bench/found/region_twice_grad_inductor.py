# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# A torch.compiler.nested_compile_region called twice, the second call taking the first's
# output, gets wrong gradients under Inductor (the forward is right; aot_eager and
# aot_eager_decomp_partition are right). CompilerBisector: backend inductor, subsystem
# lowerings, the `add` lowering. torchsmith checks it as a program with gradients judged
# (`torchsmith check` this file: mismatch at inductor); `python` this file prints the grads.
import torch


@torch.compiler.nested_compile_region
def block(a, b):
    return a * b


def fn(x, y):
    return block(y, block(x, y))


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(3, 4, generator=g), torch.randn(3, 4, generator=g)]


check_options = {"grad": True}


if __name__ == "__main__":

    def grads(f):
        x, y = (t.requires_grad_() for t in get_inputs())
        out = f(x, y)
        w = torch.linspace(-1, 1, out.numel()).reshape(out.shape)
        (out * w).sum().backward()
        return out.detach(), x.grad, y.grad

    eager = grads(fn)
    compiled = grads(torch.compile(fn))
    for name, e, c in zip(("output", "x.grad", "y.grad"), eager, compiled):
        print(f"{name}: max |compiled - eager| = {(e - c).abs().max().item():.4g}")
