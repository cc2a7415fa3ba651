"""`array.array('i', [1]) + array.array('i', [2])` (and `bytearray + bytes`): sequence concatenation
of C types that define `sq_concat` but no `nb_add`; Dynamo's `+` falls back to the numeric slot,
gets NotImplemented and returns it as the result, so the comparison that follows is False and
the other branch runs (`a += ...` recurses); from `backend="eager"` on."""

import array

import torch


def fn(x):
    a = array.array("i", [1]) + array.array("i", [2])
    if a == array.array("i", [1, 2]):
        return x + 1
    return x - 1


def get_inputs():
    return [torch.zeros(2)]
