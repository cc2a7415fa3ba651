"""A binary dunder called through its builtin type, `int.__add__(1, 2)` or `list.__add__(l, m)`,
is evaluated by Dynamo with the type object itself as the left operand: `int.__add__(1, 2)` is
NotImplemented (a branch on `== 3` flips), `list.__add__(l, [y])` NotImplemented and
`list.__iadd__(items, [y])` a no-op; from `backend="eager"` on."""

import torch


def fn(x):
    items = [x]
    list.__iadd__(items, [x * 3])
    out = torch.stack(items).sum(0)
    if int.__add__(1, 2) == 3:
        return out + 1
    return out - 1


def get_inputs():
    return [torch.tensor([1.0, 2.0])]
