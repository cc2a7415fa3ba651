# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (and 2.6.0).
# Inductor's opt-in pre-grad `move_reshape_out_of_split_stack_pass` rewrites
# stack([reshape(p) for p in split(x, ...)]) as view(permute(x)): it swaps the split dim and
# the stack dim of `x` and views the result in the stack's shape. That is the same tensor only
# when every piece has width one along the split dim (the pass's own test: split(x, 1, dim=1),
# reshape, stack(dim=0)). It never checks the width, so pieces of width two come back with
# their elements interleaved: wrong values. Other shapes make the view invalid and the compile
# fails ("Cannot view a tensor with shape ... and strides ..."). Default settings are exact.
# Met by hand, reading the split_cat.py passes the rewrites family had no template for; then
# by the family's new template.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        a, b = torch.split(x, 2, dim=1)
        return torch.stack([a.reshape(8), b.reshape(8)], dim=1)  # column k: piece k, flattened


def get_inputs():
    return [torch.arange(16.0).reshape(4, 4)]


compile_config = {
    "inductor.pre_grad_fusion_options": {
        "normalization_pass": {},
        "move_reshape_out_of_split_stack_pass": {},
    }
}
