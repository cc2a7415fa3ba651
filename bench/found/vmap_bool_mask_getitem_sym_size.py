# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, fullgraph=True.
# `vmap(lambda s: s[mask])(x)` with an unbatched bool mask (also per-sample gradients
# `vmap(grad(lambda s: s[mask].pow(2).sum()))`, `s[1:, mask]`, `repeat_interleave` with a tensor
# of repeats): Dynamo's runtime-assert pass evaluates `aten.sym_size.int` on the node's example
# value, a BatchedTensor outside its vmap level: InternalTorchDynamoError "Batching rule not
# implemented for aten::sym_size.int" (fx/passes/runtime_assert.py `_node_metadata_hook` catches
# NotImplementedError only), from `backend="eager"` on; `x[mask]` without vmap compiles.
import torch
from torch.func import vmap

MASK = torch.tensor([True, False, True, True])


def fn(x):
    return vmap(lambda s: s[MASK])(x)


def get_inputs():
    return [torch.randn(5, 4, 4, generator=torch.Generator().manual_seed(0))]


compile_kwargs = {"fullgraph": True}
