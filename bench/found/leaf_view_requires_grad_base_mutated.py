# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A leaf view that requires grad of a base that does not (`v = x[0]; v.requires_grad_()`), both
# passed to a compiled function that mutates `x`: AOTAutograd's synthetic base is marked as
# requiring grad (torch/_functorch/_aot_autograd/input_output_analysis.py, `any(...)` of the
# aliased inputs) while the runtime base `x` does not: "AssertionError: outs_to_grad length (2)
# != tangents length (1)" (BackendCompilerFailed, a crash) where eager runs forward and backward
# (v.grad = 3). From `aot_eager` on. A plain script: the view-of-a-leaf relation is the input.
import torch


def f(x, v):
    x.mul_(2)
    return v * 3


if __name__ == "__main__":
    bad = False
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        torch.manual_seed(0)
        x = torch.randn(3, 4)
        v = x[0]
        v.requires_grad_()
        run = f if backend == "eager" else torch.compile(f, backend=backend)
        try:
            run(x, v).sum().backward()
            print(f"{backend:9s} v.grad = {v.grad.tolist()}")
        except Exception as e:
            bad = True
            why = next((ln for ln in str(e).splitlines() if "Error:" in ln), str(e))
            print(f"{backend:9s} raised {type(e).__name__}: {why.strip()[:90]}")
    print("BUG: compiled refuses a program eager runs" if bad else "ok")
