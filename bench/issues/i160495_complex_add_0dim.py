# Written from the facts of https://github.com/pytorch/pytorch/issues/160495 (not copied).
# ruff: noqa
# Adding a 1-element complex64 tensor and a 0-dim complex64 tensor: eager broadcasts,
# Inductor's complex handling tried to view the 0-dim complex tensor as float and raised
# "self.dim() cannot be 0 to view ComplexFloat as Float".
import torch
from torch._inductor import config

config.fallback_random = True
torch.set_grad_enabled(False)
torch._dynamo.config.capture_dynamic_output_shape_ops = True


def eager_fn(x, y):
    return x + y


@torch.compile()
def fn(x, y):
    return x + y


x = torch.randn(1, dtype=torch.complex64)
y = torch.zeros((), dtype=torch.complex64)

print(eager_fn(x, y))
print("eager success")
print(fn(x, y))
print("compiler success")
