# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# Compiled autograd accumulates a leaf's gradient into the `.grad` it captured as a graph input
# when the backward started (torch/_dynamo/compiled_autograd.py, accumulate_grad proxies the
# variable_grad it is given; external_utils.call_accumulate_grad uses it), not into what `.grad`
# is when AccumulateGrad runs: a tensor hook (or another parameter's post-accumulate-grad hook)
# that sets `x.grad = None` (or a new tensor) first is ignored, and the stale gradient is
# added in: x.grad = 2x + 100 where eager gives 2x. In-place changes (x.grad.zero_()) are
# seen. A plain script: the stale .grad and the hook are state, not inputs.
import torch
from torch._dynamo import compiled_autograd


def step():
    torch.manual_seed(0)
    x = torch.randn(4, requires_grad=True)
    x.grad = torch.full((4,), 100.0)  # a gradient left from an earlier step

    def drop_old(g):
        x.grad = None  # eager: AccumulateGrad, which runs after this hook, starts fresh
        return g

    x.register_hook(drop_old)
    (x * x).sum().backward()
    return x.grad, 2 * x.detach().double()


if __name__ == "__main__":
    eager, ref = step()
    print("eager           off fp64 by", (eager.double() - ref).abs().max().item())
    bad = False
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        with compiled_autograd._enable(torch.compile(backend=backend)):
            got, _ = step()
        err = (got.double() - ref).abs().max().item()
        print(f"compiled autograd ({backend}) off fp64 by {err:.3g}")
        bad |= err > 1e-4
    print("BUG: compiled autograd adds a stale .grad" if bad else "ok")
