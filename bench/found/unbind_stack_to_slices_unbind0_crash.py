# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# The opt-in pre-grad pass unbind_stack_to_slices_pass (the cause of
# unbind_stack_to_slices_stack_dim.py) on stack([parts[0], parts[0]], dim=1) of unbind(x)
# along dim 0: Inductor raises "IndexError: Dimension out of range (expected to be in range of
# [-1, 0], but got 1)" (the pass ignores the stack dim); eager and the default passes run it.
import torch


def fn(x):
    parts = torch.unbind(x)
    return torch.stack([parts[0], parts[0]], dim=1)


def get_inputs():
    return [torch.randn(2, 3, generator=torch.Generator().manual_seed(0))]


compile_config = {
    "inductor.pre_grad_fusion_options": {
        "normalization_pass": {},
        "unbind_stack_to_slices_pass": {},
    }
}
