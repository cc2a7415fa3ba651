# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, the export path.
# A parameter updated in place under `torch.no_grad()` in forward (an EMA, a weight clamp):
# eager, `torch.export.export(...).module()` and `unflatten` run it; the decomposition step and
# AOTInductor do not:
# * `ep.run_decompositions().module()(x)` raises "a leaf Variable that requires grad is being
#   used in an in-place operation": the unlifted module writes the PARAMETER_MUTATION output
#   back with a plain `aten.copy_` (torch/export/_unlift.py, `_insert_copy_for_mutations`),
#   outside `no_grad`. Under `torchsmith check` (its export path), `run_decompositions` itself
#   already fails ("AssertionError: expected compiled_fn to be GraphModule"): CRASH at
#   export-decomp;
# * AOTInductor's package returns the updated parameter as an extra user output ("leaves has
#   length 2 but the spec refers to a pytree that holds 1 items") and never writes it back:
#   `_unlift_graph` (torch/_inductor/compile_fx.py) maps buffers and user inputs to mutate,
#   not `parameters_to_mutate`.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    def forward(self, x):
        with torch.no_grad():
            self.w.mul_(2)
        return x + self.w


def get_inputs():
    return [torch.ones(3)]


compile_kwargs = {"backend": "aoti"}
