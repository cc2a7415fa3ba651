# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# torch._higher_order_ops.scan along dim=1 of inputs whose dim 0 is dynamic
# (Dim.DYNAMIC), exported and built by AOTInductor: aoti_compile_and_package raises
# "InductorError: KeyError: s.." (interp.sympy_interp: a size symbol of the dynamic dim that
# the lowering of the scan does not know). The same scan along dim=0 builds and runs;
# torch.compile(dynamic=True), with and without cpp_wrapper, runs the dim=1 scan exactly.
# torchsmith checks it as a program (`torchsmith check` this file: crash at aoti-compile, the
# two calls differ in dim 0, which the export path exports as Dim.DYNAMIC).
import torch
from torch._higher_order_ops import scan


def fn(x, y):
    def comb(carry, xs):
        h = torch.tanh(carry)
        return h, h * 2 + xs

    return scan(comb, x[:, 0].contiguous(), y, dim=1)


def get_calls():
    g = torch.Generator().manual_seed(0)
    return [[torch.randn(n, 4, generator=g), torch.randn(n, 4, generator=g)] for n in (5, 3)]


compile_kwargs = {"backend": "aoti"}


if __name__ == "__main__":
    import os
    import tempfile

    class M(torch.nn.Module):
        def forward(self, x, y):
            return fn(x, y)

    (x, y), _ = get_calls()
    dyn = ({0: torch.export.Dim.DYNAMIC}, {0: torch.export.Dim.DYNAMIC})
    ep = torch.export.export(M(), (x, y), dynamic_shapes=dyn)
    print("exported program", [t.shape for t in ep.module()(x, y)])
    path = os.path.join(tempfile.mkdtemp(), "m.pt2")
    torch._inductor.aoti_compile_and_package(ep, package_path=path)  # raises KeyError: s..
