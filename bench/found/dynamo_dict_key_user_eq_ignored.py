# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings, Dynamo: dict and set lookups with keys of a user class defining __eq__ and
# __hash__ compare the keys by identity, never calling __eq__: an equal but distinct key is
# missing. {Key("a"): 2.0}.get(Key("a"), -1.0) is -1.0 compiled (2.0 eager), Key("a") in d is
# False, a set of two equal keys has 2 elements (fullgraph or not; @dataclass(unsafe_hash=True)
# keys too). UserDefinedObjectVariable.is_python_equal returns `self.value is other.value`.
import torch


class Key:
    def __init__(self, name):
        self.name = name

    def __eq__(self, other):
        return isinstance(other, Key) and self.name == other.name

    def __hash__(self):
        return hash(self.name)


def fn(x):
    scales = {Key("a"): 2.0}
    return x * scales.get(Key("a"), -1.0), Key("a") in scales, len({Key("a"), Key("a")})


def get_inputs():
    return [torch.ones(2)]
