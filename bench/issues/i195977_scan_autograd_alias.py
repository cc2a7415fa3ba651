# pytorch/pytorch#195977 (open): torch.compile (inductor) refuses a scan whose combine function
# returns, as its carry, the output of an op that saves its output for backward (tanh,
# sigmoid) once anything requires grad: "RuntimeError: scan might be aliasing the input or
# the output!". aot_eager compiles it; without gradients inductor compiles it too.
import torch
from torch._higher_order_ops import scan


def fn(init, xs):
    def step(carry, x):
        nxt = torch.tanh(carry * 0.5 + x)
        return nxt, nxt.clone()

    return scan(step, init, xs)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(3, generator=g), torch.randn(5, 3, generator=g)]


check_options = {"grad": True}
compile_config = {"dynamo.capture_scalar_outputs": True}
