# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# torch.while_loop whose counter starts as a tensor literal (torch.tensor(0)), exported, put
# through run_decompositions(), then AOTInductor: aoti_compile_and_package raises
# "LoweringException: NotImplementedError: Constant" in WhileLoop.create (ir.py), which calls
# get_name() on every carried input to see whether it is a graph input; the decomposed
# program's clone of the lifted constant is an ir.Constant, which has no name. The exported
# and the decomposed programs run; AOTInductor without run_decompositions() builds it; a
# counter made by torch.zeros((), dtype=torch.int64) builds too; torch.compile passes.
# torchsmith checks it as a program (`torchsmith check` this file: crash at aoti-compile,
# ladder: export and export_decomp pass).
import torch


def fn(x):
    def cond_fn(i, a):
        return i < 3

    def body_fn(i, a):
        return i + 1, torch.tanh(a)

    return torch.while_loop(cond_fn, body_fn, (torch.tensor(0), x))


def get_inputs():
    return [torch.randn(4, 3, generator=torch.Generator().manual_seed(0))]


compile_kwargs = {"backend": "aoti"}


if __name__ == "__main__":
    import os
    import tempfile

    class M(torch.nn.Module):
        def forward(self, x):
            return fn(x)

    (x,) = get_inputs()
    print("eager", fn(x))
    ep = torch.export.export(M(), (x,)).run_decompositions()
    print("decomposed program", ep.module()(x))
    path = os.path.join(tempfile.mkdtemp(), "m.pt2")
    torch._inductor.aoti_compile_and_package(ep, package_path=path)  # raises
    print("aoti", torch._inductor.aoti_load_package(path)(x))
