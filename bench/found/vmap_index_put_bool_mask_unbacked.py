# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, fullgraph=True.
# `vmap(lambda s: base.index_put((mask,), s))(src)` with an unbatched bool mask: functorch's
# index_put batching rule calls `nonzero(mask)` (its result unused), which on fake tensors makes a
# fresh unbacked symbol Dynamo never binds: InternalTorchDynamoError "PendingUnbackedSymbolNotFound:
# Pending unbacked symbols {u0} not in returned outputs" (variables/tensor.py call_method ignores
# fresh unbacked symbols only for `__setitem__`; `b[mask] = s` compiles), from `backend="eager"`
# on. Without fullgraph Dynamo falls back to eager for the frame.
import torch
from torch.func import vmap

MASK = torch.tensor([True, False, True, True])


def fn(base, src):
    return vmap(lambda s: base.index_put((MASK,), s))(src)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(4, 4, generator=g), torch.randn(5, 3, 4, generator=g)]


compile_kwargs = {"fullgraph": True}
