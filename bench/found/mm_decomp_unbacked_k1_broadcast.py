# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# With capture_dynamic_output_shape_ops: `v.t() @ w` where v's rows come from a mask and
# torch._check says there is exactly one (K == 1, unbacked). Inductor's aten.mm decomposition
# (decomposition.py, mm) takes K == 1 as known (statically_known_true sees the deferred runtime
# assert) and emits `self * input2`, relying on broadcasting the K dimension; broadcasting
# treats an unbacked size as not 1: "The size of tensor a (u0) must match the size of tensor b
# (5)" at aot_eager_decomp_partition (with `y[idx]` rows instead, Inductor's kernel reads the
# one-element nonzero buffer at positions 0..N-1: an out-of-bounds index). aot_eager runs.
import torch


def fn(mask, y, w):
    v = y[mask]
    torch._check(v.shape[0] == 1)
    return (v * 1).t() @ w


def get_inputs():
    g = torch.Generator().manual_seed(0)
    mask = torch.zeros(8, dtype=torch.bool)
    mask[2] = True
    return [mask, torch.randn(8, 4, generator=g), torch.randn(1, 5, generator=g)]


compile_config = {"dynamo.capture_dynamic_output_shape_ops": True}
