# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# The same bug as split_cat_to_slices_cat_dim.py (the opt-in split_cat_to_slices_pass ignores
# the cat dim), spelled as the rewrites family writes it: the split input is a narrow() of x.
# Campaigns reduce it to this form, whose op set (narrow included) the table needs to know it.
import torch


def fn(x):
    p = torch.split(x.narrow(2, 0, 8), 4, 2)
    return torch.cat([p[0], p[1]], dim=1)  # eager: [4, 6, 4]


def get_inputs():
    return [torch.randn(4, 3, 8)]


compile_config = {
    "inductor.pre_grad_fusion_options": {"normalization_pass": {}, "split_cat_to_slices_pass": {}}
}
