# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (and 2.6.0).
# The crash form of move_reshape_out_of_split_stack_wide_pieces.py (one cause): the opt-in
# pre-grad `move_reshape_out_of_split_stack_pass` rewrites stack([reshape(p) for p in
# split(x, ...)]) as view(permute(x)); here the split dim (1) and the stack dim (0) differ, the
# permuted input is not contiguous, and the pass's own `view` fails while it builds the graph:
# "Cannot view a tensor with shape torch.Size([6, 4]) and strides (1, 6) as a tensor with shape
# (3, 8)!". Kept as a second script so the known table signs this form too (its message is the
# one `select_cat_aten_noncontiguous.py` raises through another pass; the table tells them
# apart by the passes each needs). Default settings run.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        a, b, c = torch.split(x, [2, 2, 2], dim=1)
        return torch.stack([a.reshape(8), b.reshape(8), c.reshape(8)], dim=0)


def get_inputs():
    return [torch.arange(24.0).reshape(4, 6)]


compile_config = {
    "inductor.pre_grad_fusion_options": {
        "normalization_pass": {},
        "move_reshape_out_of_split_stack_pass": {},
    }
}
