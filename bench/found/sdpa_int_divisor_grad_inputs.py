# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (and 2.6.0, where the
# message is Dynamo's "s0 (could be from ['sym_3']) not in {s0: []}" assertion instead).
# Attention written out by hand, its scores divided by a Python *int*, with q, k and v graph
# inputs that require grad: torch.compile (Inductor, default settings) fails while building
# Dynamo's guards, IndexError: list index out of range in symbolic_shapes.issue_guard.
# Inductor's joint-graph SDPA fusion (fuse_attention) traces its replacement with the divisor
# as an input; AOTAutograd makes the int a symbol (create_symbol s7 = 8 for sym_3), the fused
# op's float scale guards on it (Eq(1.0 / s7, 0.125), allocated in _ops.py), and that guard has
# no source. Dividing by 8.0, by math.sqrt(64) or multiplying by 0.125 compiles; so do inputs
# without grad, q/k/v computed inside the graph, and pattern_matcher=False.
# Met by the bfloat16 mix campaign's rewrites family (runs/bf16-mix, seed 19348, an
# _sfdp_pattern_12 program); the campaign's reduction lost the program's check_options (fixed)
# and this form was reduced by hand.
import torch


def fn(q, k, v):
    return (torch.matmul(q, k.transpose(-2, -1)) / 8).softmax(dim=-1).matmul(v)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(1, 2, 5, 8, generator=g) for _ in range(3)]


check_options = {"grad": True}
