# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, the export path.
# `y = f(x); self.state.copy_(y); return y` (a stateful update): after `run_decompositions()`,
# `_remove_unnecessary_copy_op_pass` (torch/export/exported_program.py) makes the buffer
# mutation's value `y` itself, also a user output, so `.module()` returns the BUFFER
# (`_unlift.py` maps the output to the copy_ node): a 0-d `y` copied into a (3,) buffer comes
# back with shape (3,) (META-MISMATCH at export-decomp); a float64 `y` comes back float32;
# outputs alias the buffer, so a later call overwrites earlier outputs. `ep.module()` without
# decompositions is right; strict and non-strict export alike.
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("state", torch.zeros(3))

    def forward(self, x):
        y = x.sum()
        self.state.copy_(y)
        return y


def get_inputs():
    return [torch.arange(3.0)]


compile_kwargs = {"backend": "aoti"}
