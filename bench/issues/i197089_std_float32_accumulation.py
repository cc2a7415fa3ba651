# Written from the facts of https://github.com/pytorch/pytorch/issues/197089 (not copied).
# ruff: noqa
# torch.std on CPU: eager accumulates float32 input in double; the compiled reduction
# accumulates in float32, so 1e-30-scale inputs underflow to a zero std and 1e30-scale
# inputs overflow to inf.
import torch


def spread(x):
    return torch.std(x, dim=-1)


torch.manual_seed(0)
base = torch.randn(4, 256)
cspread = torch.compile(spread)
bad = False
for scale in (1e-30, 1.0, 1e30):
    x = base * scale
    e = spread(x)
    c = cspread(x)
    r = spread(x.double())
    print(
        f"scale {scale:g}: eager {e[0].item():.4e} compiled {c[0].item():.4e} fp64 {r[0].item():.4e}"
    )
    bad |= not torch.allclose(e, c, rtol=1e-4, atol=0.0)
assert not bad
