# A bug torchsmith met (see README.md here, "met on the way"); torch 2.13.0 CPU. Not found by
# the differential oracle: the sensitivity probe's eager runs of a train-hop program failed.
# Eager `torch._higher_order_ops.map` compiles its body with Dynamo. Run once under a
# TorchDispatchMode (here the public FlopCounterMode) with a parameter that requires grad, it
# fails with "Value after * must be an iterable, not NotImplementedType"; from then on every
# eager `map` call in the process returns its raw tuple of outputs instead of a tensor (code
# downstream breaks: `linear(): argument 'input' must be Tensor, not tuple`), until
# torch._dynamo.reset(). Without grad, `map` under FlopCounterMode returns the NotImplemented
# object itself as its output. torch 2.6.0 raises a plain NotImplementedError under the mode and
# later calls are unaffected (a regression in how the failure is handled).
import torch
from torch._higher_order_ops.map import map as hop_map
from torch.utils.flop_counter import FlopCounterMode


def f(x, w):
    return hop_map(lambda r, w: torch.tanh(w @ r), x, w)


if __name__ == "__main__":
    x, w = torch.randn(4, 3), torch.randn(3, 3, requires_grad=True)
    print("before:", type(f(x, w)).__name__)  # Tensor
    try:
        with FlopCounterMode(display=False):
            f(x, w)
    except Exception as e:
        print("under FlopCounterMode:", type(e).__name__, e)
    print("after:", type(f(x, w)).__name__)  # tuple on 2.13.0 (Tensor on 2.6.0)
    try:
        with FlopCounterMode(display=False):
            print("no grad, under FlopCounterMode:", f(x, w.detach()))  # NotImplemented (2.13.0)
    except NotImplementedError as e:  # torch 2.6.0
        print("no grad, under FlopCounterMode:", type(e).__name__)
