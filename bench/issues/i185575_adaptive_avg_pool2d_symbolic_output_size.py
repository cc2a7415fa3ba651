# A form of pytorch/pytorch#185575 (closed; fix PR #185369): Inductor's `_adaptive_avg_pool2d`
# lowering decides "window larger than 25: fall back" with a Python `if` on the window size,
# which is symbolic when the output size is (here: integer arguments of the compiled function
# under dynamic=True), so lowering raises "cannot determine truth value of Relational". The
# issue met it through Upsample(mode='area'); this form passes the output size directly. Met by
# the dynamic-shapes mix campaign (runs/dynamic-mix); an output size of 0 or 1 compiles.
import torch
import torch.nn.functional as F


def fn(x, h, w):
    return F.adaptive_avg_pool2d(x, (h, w))


def get_inputs():
    return [torch.rand(2, 8, 9, generator=torch.Generator().manual_seed(0)), 3, 4]


compile_kwargs = {"dynamic": True}
