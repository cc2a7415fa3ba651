# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# torch.export.export(strict=True) of a torch.autocast region: the pre-dispatch retrace of
# Dynamo's graph records `_enter_autocast` as a node without entering autocast
# (PreDispatchTorchFunctionMode, fx/experimental/proxy_tensor.py: "the python APIs run so we
# don't have to run them again"; Dynamo's graph calls _enter_autocast directly, so they never
# run), so the region is traced in float32: `y.float()` becomes a no-op aliasing `y`, the graph
# returns one node twice, and the dtype assertion export inserts fails when the program runs
# under real autocast: ep.module()(x) raises "Tensor dtype mismatch! Expected: Float, Got:
# c10::BFloat16" (run_decompositions and AOTInductor alike). Non-strict export (the default)
# and torch.compile are right. A plain script: the strict flag is no program input.
import torch


class M(torch.nn.Module):
    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = torch.mm(x, x)
            z = y.float()
        return y, z


if __name__ == "__main__":
    x = torch.randn(3, 3)
    want = [t.dtype for t in M()(x)]
    print("eager       ", want)
    bad = False
    for strict in (False, True):
        try:
            got = [t.dtype for t in torch.export.export(M(), (x,), strict=strict).module()(x)]
            print(f"strict={strict!s:5}", got)
            bad |= got != want
        except Exception as e:
            bad = True
            print(f"strict={strict!s:5} raised {type(e).__name__}: {str(e).splitlines()[0][:90]}")
    print("BUG: strict export of an autocast region fails to run" if bad else "ok")
