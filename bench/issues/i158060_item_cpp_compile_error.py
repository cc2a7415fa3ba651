# Written from the facts of https://github.com/pytorch/pytorch/issues/158060 (not copied).
# ruff: noqa
# A compiled function whose only work is an .item() on a float64 tensor, with scalar
# outputs captured: the generated C++ kernel referenced the unbacked float "zuf0"
# without it being passed in, and g++ rejected it ("'zuf0' was not declared").
import torch

torch._dynamo.config.capture_scalar_outputs = True


@torch.compile
def f(x):
    return torch.tensor(x.item(), dtype=torch.float64) + 1


x = torch.tensor(2.5, dtype=torch.float64)
print(f(x))
