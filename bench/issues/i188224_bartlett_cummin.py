# Written from the facts of https://github.com/pytorch/pytorch/issues/188224 (not copied).
# ruff: noqa
# An empty bartlett window (length 0), cloned, then cummin along a large negative dim:
# eager accepts it for a 1-D empty tensor, Inductor's lowering tripped an assertion
# in dim validation.
import torch


def build():
    w = torch.bartlett_window(0, periodic=False, requires_grad=False)
    w2 = torch.clone(w)
    return torch.cummin(w2, -46)[0]


eager_out = build()
print("eager OK:", eager_out.shape)
compiled = torch.compile(build, backend="inductor")
with torch.no_grad():
    compiled_out = compiled()
print("compiled OK:", compiled_out.shape)
