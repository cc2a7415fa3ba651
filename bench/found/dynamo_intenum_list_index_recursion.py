# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A list indexed by an IntEnum member, `table[Idx.B]`: Dynamo's `nb_index_impl`
# (torch/_dynamo/variables/user_defined.py) resolves the inherited `int.__index__` slot wrapper,
# whose call goes back through `call_method("__index__")` to `nb_index_impl`: an endless
# recursion, "InternalTorchDynamoError: RecursionError", a crash even without fullgraph.
# Tensors indexed by the member, `range(Idx.B)` and plain int subclasses pass.
import enum

import torch


class Idx(enum.IntEnum):
    A = 0
    B = 1


TABLE = [10.0, 20.0]


def fn(x):
    return x * TABLE[Idx.B]


def get_inputs():
    return [torch.ones(1)]
