# Written from the facts of https://github.com/pytorch/pytorch/issues/138908 (not copied).
# ruff: noqa
# y[x] += y[x] where x (after +10) holds the same row index twice, compiled with
# dynamic=True and mutating y in place: eager doubles the row, the compiled function
# applied the update twice and quadrupled it.
import torch


@torch.compile(backend="inductor", dynamic=True)
def bump(x, y):
    x = x + 10
    y[x] += y[x]


torch.manual_seed(0)
x = torch.randint(-10, -9, (1, 2), dtype=torch.int64)
y = torch.randn((2, 32), dtype=torch.float32)
y_ref = y.clone()
with torch.no_grad():
    idx = x + 10
    y_ref[idx] += y_ref[idx]
    bump(x, y)
print("eager row0   :", y_ref[0, :4])
print("compiled row0:", y[0, :4])
assert torch.allclose(y_ref, y)
