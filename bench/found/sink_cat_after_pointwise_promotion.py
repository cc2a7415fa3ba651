# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: the pre-grad pass `sink_cat_after_pointwise` (pre_grad.py, run by `fuse_fx`
# on every compile) rewrites `tanh(cat(ts))` / `relu(cat(ts))` as `cat([tanh(t) for t in ts])`,
# applying the op to each input at its own dtype instead of `cat`'s promoted one. Token ids
# (int64) concatenated with float16 features: eager float16, compiled float32 (META-MISMATCH).
# With a bool mask and a float tensor, `relu(cat([mask, x]))` runs `relu` on the bool tensor
# and the C++ compile fails (`no matching function for call to 'clamp_min(VecMask<float,1>&`);
# eager itself rejects relu of a bool tensor. The eighth pass read this pass for in-place users
# and missed the promotion.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, idx, h):
        return torch.tanh(torch.cat([idx, h], dim=0))


def get_inputs():
    return [
        torch.tensor([1, 2, 3]),
        torch.randn(3, generator=torch.Generator().manual_seed(0)).half(),
    ]
