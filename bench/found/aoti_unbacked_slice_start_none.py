# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# AOTInductor writes Python's None into its C++ wrapper for a slice with no start on a
# data-dependent (unbacked) length: `int64_t u1_st_index = None < 0 ? None + u0 : None;`
# (CppWrapperCpu.codegen_dynamic_slice_size prints node.start as is). torch.compile passes.
# torchsmith checks it as a program (`torchsmith check` this file: crash at aoti-compile);
# `python` this file runs it by hand.
import torch


def fn(x):
    y = x[x > 0]  # a data-dependent (unbacked) length u0
    return y[: y.shape[0] - 1]


def get_inputs():
    return [torch.tensor([1.0, -2.0, 3.0, 4.0])]


compile_kwargs = {"backend": "aoti"}


if __name__ == "__main__":
    import tempfile

    class M(torch.nn.Module):
        def forward(self, x):
            return fn(x)

    (x,) = get_inputs()
    print("eager", fn(x).tolist())
    print("torch.compile", torch.compile(fn, fullgraph=True)(x).tolist())
    ep = torch.export.export(M(), (x,))
    with tempfile.TemporaryDirectory() as d:
        try:
            path = torch._inductor.aoti_compile_and_package(ep, package_path=f"{d}/m.pt2")
            print("aoti", torch._inductor.aoti_load_package(path)(x).tolist())
        except Exception as e:
            lines = [ln for ln in str(e).splitlines() if "error:" in ln or "None <" in ln]
            print("aoti", type(e).__name__, *lines[:2], sep="\n  ")
