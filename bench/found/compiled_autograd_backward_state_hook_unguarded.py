# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A hook on an intermediate inside a compiled function (`y.register_hook(...)`, fullgraph=True,
# supported without compiled autograd) traced while compiled autograd was on is lowered to a
# BackwardState trampoline (variables/tensor.py picks the path by compiled_autograd_enabled at
# trace time), with no guard on that state: the same compiled function called later without
# compiled autograd is not recompiled, and its backward on the ordinary engine raises
# "AssertionError: BackwardState requires CompiledAutograd" (from aot_eager on; backend="eager"
# is right). Also with torch._dynamo.config.compiled_autograd = True and .backward() outside
# the compiled function. A plain script: whether compiled autograd is on is state.
import torch
from torch._dynamo import compiled_autograd


def f(x):
    y = x * 2
    y.register_hook(lambda g: g * 3)
    return y.sin()


def grad_of(fn, x):
    x.grad = None
    fn(x).sum().backward()
    return x.grad


if __name__ == "__main__":
    torch.manual_seed(0)
    x = torch.randn(4, requires_grad=True)
    want = grad_of(f, x).clone()
    bad = False
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        cf = torch.compile(f, backend=backend, fullgraph=True)
        with compiled_autograd._enable(torch.compile(backend=backend)):
            grad_of(cf, x)  # first call: traced with compiled autograd on
        try:
            err = (grad_of(cf, x) - want).abs().max().item()  # later, without it
            print(f"{backend:9s} later call without compiled autograd: off eager by {err:.3g}")
            bad |= err > 1e-5
        except Exception as e:
            bad = True
            print(
                f"{backend:9s} later call without compiled autograd raised {type(e).__name__}: {e}"
            )
    print(
        "BUG: a compiled function traced under compiled autograd fails without it" if bad else "ok"
    )
