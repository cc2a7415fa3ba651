# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (and 2.6.0).
# The same cause as unbind_stack_to_slices_stack_dim.py, through the other opt-in pass that
# shares its helper: split_stack_to_cats_pass and unbind_stack_to_slices_pass both call
# split_cat.reshape_cat_node_to_stack, whose branch for a stack dim other than the split
# (unbind) dim rebuilds the stack with one reshape and a two-dim permute, which puts the values
# in the wrong order. Met by the bfloat16 mix campaign's rewrites family (runs/bf16-mix, seed
# 19370); exact values, so no rounding question.
import torch


def fn(x):
    a, b = torch.split(x, 2)  # two [2, 2] pieces
    return torch.stack([a, b], dim=2)  # eager: [[[0, 4], [1, 5]], [[2, 6], [3, 7]]]


def get_inputs():
    return [torch.arange(8.0).reshape(4, 2)]


compile_config = {
    "inductor.pre_grad_fusion_options": {"normalization_pass": {}, "split_stack_to_cats_pass": {}}
}
