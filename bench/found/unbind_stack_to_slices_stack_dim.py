# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
import torch
import torch._inductor.config as cfg


def fn(x):
    a, b = x.unbind(1)  # two [4] columns
    return torch.stack([a, b], dim=0)  # eager: x.T, shape [2, 4]


x = torch.arange(8.0).view(4, 2)
print("eager", fn(x).tolist())
for opts in ({}, {"normalization_pass": {}, "unbind_stack_to_slices_pass": {}}):
    torch._dynamo.reset()
    with cfg.patch(pre_grad_fusion_options=opts):
        print(opts or "default", torch.compile(fn, backend="inductor")(x).tolist())
