# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
import torch
import torch._inductor.config as cfg


def fn(x):
    return torch.cat([x.select(1, i) for i in range(4)], dim=1) * 2


x = torch.randn(4, 4, 2).permute(1, 0, 2)  # non-contiguous input
print("eager", tuple(fn(x).shape))
for opts in ({}, {"normalization_aten_pass": {}, "select_cat_aten_pass": {}}):
    torch._dynamo.reset()
    with cfg.patch(post_grad_fusion_options=opts):
        try:
            print(opts or "default", tuple(torch.compile(fn)(x).shape))
        except Exception as e:
            print(opts, type(e).__name__, str(e).splitlines()[0][:150])
