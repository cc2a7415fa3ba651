# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, dynamic=True.
# `int(-n / 4)` on a dynamic size: ShapeEnv.simplify rewrites TruncToInt(IntTrueDiv(a, b)) to
# FloorDiv(a, b) (symbolic_shapes.py, "TruncToInt(IntTrueDiv(a,b)) == FloorDiv(a, b)"), wrong
# when a / b < 0 (int() truncates toward zero). The guard `int(-n/4) == -1` is installed as
# `(-n)//4 == -1`: compiled at n=9 (int(-9/4) = -2), the graph is reused for n=6, where eager
# takes the other branch (int(-6/4) = -1): off by 2, silently, from `backend="eager"` on; a fresh
# compile at n=7 fails (`7 not in VR[2, 4]`).
import torch


def fn(x):
    k = int(-x.shape[0] / 4)
    if k == -1:
        return x + 1
    return x - 1


def get_calls():
    return [[torch.zeros(9)], [torch.zeros(6)]]


compile_kwargs = {"dynamic": True}
