# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings, Dynamo: a property (any descriptor's __get__) raising AttributeError on a
# class that defines __getattr__. CPython's attribute lookup then calls __getattr__
# (slot_tp_getattr_hook), so getattr(w, "scale", 5.0) is 7.0 and hasattr(w, "scale") is True;
# compiled, the AttributeError escapes to getattr's default: 5.0 and False (fullgraph or not).
# UserDefinedObjectVariable.generic_getattr (variables/user_defined.py) lets the data
# descriptor's AttributeError out without trying __getattr__.
import torch


class Wrapper:
    @property
    def scale(self):
        raise AttributeError("not cached yet")

    def __getattr__(self, name):
        return 7.0


def fn(x, w):
    s = getattr(w, "scale", 5.0)
    return x * s, hasattr(w, "scale")


def get_inputs():
    return [torch.ones(2), Wrapper()]
