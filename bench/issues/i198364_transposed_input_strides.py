# Written from the facts of https://github.com/pytorch/pytorch/issues/198364 (not copied).
# ruff: noqa
# With the first input stored transposed, copysign / floor_divide / div(floor) return
# the input's layout in eager (TensorIterator keeps strides (1, 5)) but contiguous
# strides under torch.compile.
import torch

a = torch.rand(6, 5).mT
b = torch.rand(5, 6) + 1
cases = {
    "copysign": lambda a, b: torch.copysign(a, b - 1.5),
    "floor_divide": lambda a, b: torch.floor_divide(a, b),
    "div floor": lambda a, b: torch.div(a, b, rounding_mode="floor"),
}
bad = []
for name, op in cases.items():
    torch._dynamo.reset()
    e = op(a, b)
    c = torch.compile(op)(a, b)
    print(f"{name:13s} eager {e.stride()} compiled {c.stride()} equal {torch.equal(e, c)}")
    if e.stride() != c.stride():
        bad.append(name)
assert not bad, bad
