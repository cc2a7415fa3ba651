# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (and 2.6.0).
# Inductor's opt-in pre-grad split/cat passes replace a `torch.cat` (or `torch.stack`) of a
# split, which returns a NEW tensor, by the split's input itself or by a slice or view of it.
# They run on Dynamo's graph before functionalization, where in-place ops are still in the
# graph, and none checks for them: an in-place op on the cat's result then writes into the
# caller's input. Here `y.mul_(0)` zeroes `x` under the compiled function, so `x * 2` after
# it is 0 instead of 2x, and the caller's tensor is corrupted. Passes that do this on
# 2.13.0 (each alone with `normalization_pass`): mutate_cat_pass (this program; the whole
# split -> `x`, part of it -> a slice of `x`), split_cat_to_slices_pass, split_stack_to_cats_pass,
# merge_getitem_cat_pass, unbind_stack_pass. Default settings (no fusion options) are exact.
# Met by hand while reading the passes this project's rewrites family had no template for
# (`mutate_cat_pass` was one), after three value bugs of the same family of passes.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        y = torch.cat(torch.split(x, 2, dim=1), dim=1)  # a copy of x in eager
        y.mul_(0)  # must not touch x
        return y + 1, x * 2


def get_inputs():
    return [torch.randn(2, 6, generator=torch.Generator().manual_seed(0))]


compile_config = {
    "inductor.pre_grad_fusion_options": {"normalization_pass": {}, "mutate_cat_pass": {}}
}
