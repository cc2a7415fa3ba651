# Written from the facts of https://github.com/pytorch/pytorch/issues/197889 (not copied).
# ruff: noqa
# f(s) uses a Python float both as a multiplier and, through arithmetic, as rms_norm's
# eps. Called with several values of s, the compiled function keeps an eps computed from
# an earlier s (AOT baked the specialised constant while the Dynamo graph looked the same).
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(4, 4)


def f(x, s):
    return F.rms_norm(x * s, (4,), eps=s + 1e-3)


cf = torch.compile(f)
worst = 0.0
for s in (0.5, 1.0, 2.0, 4.0, 8.0):
    e = f(x, s)
    c = cf(x, s)
    d = (e - c).abs().max().item()
    worst = max(worst, d)
    print(f"s={s}: max diff {d:.3g}")
assert worst < 1e-5, worst
