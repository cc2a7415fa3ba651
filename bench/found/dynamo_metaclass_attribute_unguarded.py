# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A class attribute that comes from the metaclass (`class Model(metaclass=Meta)`, `Model.SCALE`
# defined on `Meta`), changed between two calls (`Meta.SCALE = 5.0`): Dynamo's metaclass lookup
# (torch/_dynamo/variables/user_defined.py) returns a `GetAttrVariable` whose constant value is
# read with no guard, only the class's identity is guarded: the second call keeps 2.0 for 5.0,
# silently, with any backend (even "eager"). A metaclass method replaced, or the class gaining its
# own attribute that shadows the metaclass's, alike.
import torch


class Meta(type):
    SCALE = 2.0


class Scaled(metaclass=Meta):
    pass


def fn(x):
    return x * Scaled.SCALE


def get_calls():
    return [[torch.ones(3)], [torch.ones(3)]]


def before_call(i, target):
    Meta.SCALE = 2.0 if i == 0 else 5.0
