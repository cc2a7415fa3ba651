# Written from the facts of https://github.com/pytorch/pytorch/issues/187018 (not copied).
# ruff: noqa
# abs() of a uint8 tensor, negated, concatenated with itself and summed: the CPU
# C++ kernel promoted through std::abs on int and gave a different sum than eager.
import torch


def f(x):
    y = -x.abs()
    return torch.cat([y, y]).sum()


x = torch.tensor([200, 200], dtype=torch.uint8)
eager = f(x)
compiled = torch.compile(f)(x)
print("torch", torch.__version__)
print("eager:", eager.item(), "compiled:", compiled.item())
assert eager.item() == compiled.item()
