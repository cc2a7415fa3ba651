# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings, Dynamo: hasattr() on an object whose property has a side effect (a lazily
# materialized buffer). Dynamo traces hasattr correctly, then builds its HASATTR guard by calling
# the real hasattr() on the live object (guards.py, GuardBuilder.HASATTR), which runs the
# property during compilation: the object changes under the guards just built, and compile fails
# ("AssertionError: Unexpected type <class 'torch.Tensor'>" in CONSTANT_MATCH; a property that
# counts calls gives "Guard failed on the same frame it was created"; one raising RuntimeError
# inside try/except gives InternalTorchDynamoError). Eager runs.
import torch


class Lazy:
    def __init__(self):
        self._buf = None

    @property
    def buf(self):
        if self._buf is None:
            self._buf = torch.zeros(2)
        return self._buf


def fn(x, m):
    if hasattr(m, "buf"):
        return x + m.buf
    return x


def get_inputs():
    return [torch.ones(2), Lazy()]
