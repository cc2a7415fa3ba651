# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, fullgraph=True.
# `torch.combinations(a, 2)`: the op has no decomposition or meta of its own; its C++ composite
# runs `masked_select` once per grid (an unbacked size each) and stacks them, so only u0 reaches
# the output and Dynamo's fake run fails: InternalTorchDynamoError "PendingUnbackedSymbolNotFound:
# Pending unbacked symbols {u1} not in returned outputs" (symbolic_shapes.py,
# compute_unbacked_bindings), from `backend="eager"` on, with or without
# capture_dynamic_output_shape_ops. Without fullgraph Dynamo falls back for the frame.
import torch


def fn(a):
    return torch.combinations(a, 2) * 2


def get_inputs():
    return [torch.randn(4, generator=torch.Generator().manual_seed(0))]


compile_kwargs = {"fullgraph": True}
