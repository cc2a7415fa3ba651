# Written from the facts of https://github.com/pytorch/pytorch/issues/188213 (not copied).
# ruff: noqa
# AdaptiveMaxPool1d to output size 0 gives an empty tensor, which is then used as index
# and source of scatter, followed by hardswish: the scatter lowering hit an assertion.
import torch
import torch.nn as nn
import torch.nn.functional as F

pool = nn.AdaptiveMaxPool1d((0,), return_indices=False).eval()
torch.manual_seed(0)
inp = torch.rand([4, 8], dtype=torch.float32)


def model():
    t = torch.special.ndtri(inp)
    p = pool(t)
    s = torch.scatter(p, -1, p, p)
    return F.hardswish(s, inplace=False)


out = model()
print("eager OK:", out.shape)
c = torch.compile(model, backend="inductor")
with torch.no_grad():
    cout = c()
print("compiled OK:", cout.shape)
