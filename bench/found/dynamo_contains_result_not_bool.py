# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `item in obj` where the class's `__contains__` returns a truthy non-bool (a count, a match
# object): the `in` operator converts it to a bool in Python; Dynamo's `sq_contains`
# (torch/_dynamo/variables/user_defined.py) returns the method's value as it is: 6 (int) where
# eager gives True, silently, with any backend. (`len(obj)` and `hash(obj)` skip CPython's
# conversions the same way: `__len__` returning True stays True; `__hash__` returning -1 stays
# -1, not -2.)
import torch


class Bag:
    def __contains__(self, item):
        return item * 3


def fn(x):
    found = 2 in Bag()
    return x + 1, found


def get_inputs():
    return [torch.zeros(1)]
