"""`int.__abs__(v)` for an int subclass that overrides `__abs__` must run int's own method (3);
Dynamo calls the generic `abs`, which dispatches to the override (1000); the usual
`def __neg__(self): return Sign(int.__neg__(self))` recurses forever inside Dynamo; from
`backend="eager"` on."""

import torch


class Loud(int):
    def __abs__(self):
        return 1000


def fn(x):
    return x * int.__abs__(Loud(-3))


def get_inputs():
    return [torch.ones(2)]
