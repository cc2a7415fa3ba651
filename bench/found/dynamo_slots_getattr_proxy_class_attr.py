# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A `__slots__` proxy class whose `__getattr__` forwards to a wrapped object, with a class
# attribute of its own (`scale = 2.0`): eager finds the class attribute and never calls
# `__getattr__`; Dynamo tests `hasattr(obj, "__dict__") and name in obj.__dict__` on the real
# object (torch/_dynamo/variables/user_defined.py), and `hasattr(proxy, "__dict__")` calls the
# user's `__getattr__("__dict__")`, which forwards to the wrapped object's dict: the wrapped
# value 100 is used instead of 2, silently, with any backend. (A `__getattr__` returning a number
# crashes instead: "argument of type 'int' is not iterable".)
import torch


class Inner:
    def __init__(self):
        self.scale = 100.0


class Proxy:
    __slots__ = ("_w",)
    scale = 2.0

    def __init__(self, w):
        object.__setattr__(self, "_w", w)

    def __getattr__(self, name):
        return getattr(object.__getattribute__(self, "_w"), name)


P = Proxy(Inner())


def fn(x):
    return x * P.scale


def get_inputs():
    return [torch.ones(1)]
