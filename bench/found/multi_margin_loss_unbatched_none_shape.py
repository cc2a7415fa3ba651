# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `F.multi_margin_loss(x, t, reduction="none")` with a 1-D input and a 0-d target (one unbatched
# sample, supported since PR #30826: "(C,) X () -> ()"): the decomposition (torch/_decomp/
# decompositions.py, also registered as the op's Autograd implementation, so fake and meta
# tensors use it) applies `atleast_2d` / `atleast_1d` and returns `z.mean(dim=1)` without
# squeezing back: shape (1,) for () (META-MISMATCH from aot_eager on; `torch.stack` of it with a
# 0-d tensor fails to compile even with `backend="eager"`).
import torch
import torch.nn.functional as F


def fn(x, t):
    return F.multi_margin_loss(x, t, reduction="none")


def get_inputs():
    return [torch.tensor([0.1, 0.9, 0.4, 0.3]), torch.tensor(2)]
