"""The joint-graph `mul_softmax`/`div_softmax` pattern (`s = (x * c).half(); s - s.amax(-1)`)
is replaced by a computation that converts `x` to the target dtype before scaling it by `c`:
x = 1e5 overflows float16 to inf, where eager scales first (1e3, finite): every element comes out
-inf (0 after `exp`) instead of [-2000, -1000, 0, -3000]. `pattern_matcher=False` matches eager."""

import torch


def fn(x):
    s = (x * 0.01).half()
    return s - s.amax(dim=-1, keepdim=True)


def get_inputs():
    return [torch.tensor([[1.0e5, 2.0e5, 3.0e5, 0.0]])]
