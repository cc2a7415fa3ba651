# pytorch/pytorch#160391 (PR #185325, "Fix CPU vector atomic add for scalar indices"): CPU
# Inductor's vectorized atomic-add store asserts that the destination index is a vector,
# which fails when the index is the same in every lane. Here: index_add into a destination of
# one element from four sources (all index 0), `AssertionError` in `CppVecKernel.store`; a
# destination of two elements, or three sources, compile. Still failing in 2.13.0 (and
# 2.6.0). torchsmith's form from the config-export campaign (seed 16187: `logsumexp(...,
# keepdim=True).index_add_(0, idx, u)` through AOTInductor), reduced by hand.
import torch


def fn(z, idx, u):
    return z[:1].clone().index_add_(0, idx, u)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [
        torch.rand(5, generator=g),
        torch.zeros(4, dtype=torch.int64),
        torch.rand(4, generator=g),
    ]
