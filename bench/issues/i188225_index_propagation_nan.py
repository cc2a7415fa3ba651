# Written from the facts of https://github.com/pytorch/pytorch/issues/188225 (not copied).
# ruff: noqa
# ones -> atan2(x, x) (= pi/4) -> log2 (negative) -> arccosh (NaN) -> Softmax: eager
# returns NaNs, Inductor's index propagation tried to order a sympy expression holding
# nan and raised "ValueError: The argument 'nan' is not comparable".
import torch
import torch.nn as nn

softmax = nn.Softmax(dim=-1).eval()


def model():
    t = torch.ones([2, 2])
    t = torch.atan2(t, t)
    t = torch.log2(t)
    t = torch.arccosh(t)
    return softmax(t)


eager_out = model()
print("eager OK:", eager_out)
compiled = torch.compile(model, backend="inductor")
with torch.no_grad():
    compiled_out = compiled()
print("compiled OK:", compiled_out)
