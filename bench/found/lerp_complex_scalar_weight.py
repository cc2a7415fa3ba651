# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `torch.lerp(a, b, w)` on complex tensors with a complex Python scalar weight (supported in
# eager): Inductor's `aten.lerp.Scalar` decomposition (torch/_inductor/decomposition.py,
# `_lerp_scalar`, added by PRs #176802/#176804) picks its formula with
# `if weight >= 0.5 or weight <= -0.5`, which a complex number cannot answer: compiling fails
# from the decomposition rung on, "TypeError: '>=' not supported between instances of
# 'complex' and 'float'" (the reference `lerp` compares `abs(weight)`).
import torch


def fn(a, b):
    return torch.lerp(a, b, 0.5 + 0.5j)


def get_inputs():
    return [torch.tensor([1 + 1j, 2 - 1j]), torch.tensor([3 + 0j, 1j])]
