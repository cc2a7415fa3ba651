# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
import torch
import torch._inductor.config as cfg


def fn(x):
    a, b = torch.split(x, 4, dim=2)  # two [4, 3, 4] chunks
    return torch.cat([a, b], dim=1)  # eager: [4, 6, 4]


x = torch.randn(4, 3, 8)
print("eager", tuple(fn(x).shape))
for opts in ({}, {"normalization_pass": {}, "split_cat_to_slices_pass": {}}):
    torch._dynamo.reset()
    with cfg.patch(pre_grad_fusion_options=opts):
        print(opts or "default", tuple(torch.compile(fn, backend="inductor")(x).shape))
