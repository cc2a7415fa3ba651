"""`d.keys().__and__([2, 3])` (a keys view's `&` with any iterable: `{2}`): Dynamo's keys view reads
`set_items` from the argument without checking it is a set-like variable: InternalTorchDynamoError
"'ListVariable' object has no attribute 'set_items'" (the operator form `keys & [2, 3]` works)."""

import torch


def fn(x):
    k = {1: 0, 2: 0}.keys()
    return x + len(k.__and__([2, 3]))


def get_inputs():
    return [torch.zeros(2)]
