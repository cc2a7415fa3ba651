# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# `y[mask, :, idx]`: a boolean mask and an integer index tensor separated by a slice, with
# `capture_dynamic_output_shape_ops=True` (the data-dependent mask is traced as nonzero):
# eager returns shape [2, 4, 6]; Dynamo (any backend, even "eager") fails with
# "InternalTorchDynamoError: PendingUnbackedSymbolNotFound: Pending unbacked symbols {u0}
# not in returned outputs": the mask's unbacked count is unified with the int index's static
# length 2 in the fake `index` call, so the fresh symbol never appears in the output shape. A
# crash, not a graph break, even with fullgraph=False.
import torch


def fn(y, mask, idx):
    return y[mask, :, idx]


def get_inputs():
    return [torch.randn(3, 4, 5, 6), torch.tensor([True, False, True]), torch.tensor([1, -1])]


compile_config = {"dynamo.capture_dynamic_output_shape_ops": True}
