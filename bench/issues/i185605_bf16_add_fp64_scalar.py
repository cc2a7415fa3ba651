# Written from the facts of https://github.com/pytorch/pytorch/issues/185605 (not copied).
# ruff: noqa
# A bfloat16 tensor plus a 0-dim float64 tensor holding -0.1: eager rounds the scalar
# the way bf16 arithmetic does and 0.1 + (-0.1) is exactly 0; the compiled kernel kept
# the scalar in higher precision and returned ~9.8e-05.
import torch


def fn(x, s):
    return torch.add(x, s)


x = torch.tensor([[0.0, 0.0, 0.1], [-0.2, 1.0, -1.0]], dtype=torch.bfloat16)
s = torch.tensor(-0.1, dtype=torch.float64)
eager = fn(x, s)
compiled = torch.compile(fn)(x, s)
print("eager   :", eager)
print("compiled:", compiled)
print("element [0, 2]:", eager[0, 2].item(), compiled[0, 2].item())
print("allclose:", torch.allclose(eager.float(), compiled.float()))
