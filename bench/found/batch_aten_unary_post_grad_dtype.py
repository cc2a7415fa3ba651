# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# The opt-in post-grad batch fusions `batch_aten_tanh`, `batch_aten_sigmoid` and
# `batch_aten_relu` (post_grad_fusion_options) stack five or more same-shape unary ops into
# one. Their group key (BatchPointwiseOpsPostGradFusion.match) holds the op, the shape, the
# inplace flag and the parent, not the dtype, so a float16 tensor is stacked with float32 ones:
# torch.stack promotes, and the float16 result comes back float32 (wrong dtype). The same
# missing dtype in `batch_linear_post_grad`'s key was fixed by PR #197069 (after 2.13.0); the
# unary fusions were left out, the pre-grad ones too (`batch_tanh`, `batch_sigmoid`,
# `batch_relu` in pre_grad_fusion_options: BatchPointwiseOpsPreGradFusion.match, the same key).
# Default settings are exact. Also on 2.6.0.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, a, b, c, d, e):
        return [torch.tanh(t) for t in (a, b, c, d, e)]


def get_inputs():
    g = torch.Generator().manual_seed(0)
    dtypes = (torch.float32, torch.float16, torch.float32, torch.float32, torch.float32)
    return [torch.randn(3, 4, generator=g, dtype=dt) for dt in dtypes]


compile_config = {"inductor.post_grad_fusion_options": {"batch_aten_tanh": {}}}
