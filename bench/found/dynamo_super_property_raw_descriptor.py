# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings, Dynamo: an attribute read through super() that is a property (a user
# descriptor, a cached_property) in the base class gives the descriptor object itself, not what
# its __get__ returns: `super().scale is None` is False compiled (True eager), so the branch
# flips and the result is x * 3 for x * 2. SuperVariable.var_getattr (variables/misc.py) wraps
# a non-constant class attribute in a GetAttrVariable without applying __get__.
import torch


class Base:
    def __init__(self):
        self._scale = None

    @property
    def scale(self):
        return self._scale


class Child(Base):
    def uses_default(self):
        return super().scale is None


def fn(x, m):
    return x * (2.0 if m.uses_default() else 3.0)


def get_inputs():
    return [torch.ones(2), Child()]
