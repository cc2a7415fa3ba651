# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (and 2.6.0).
# Two inputs that share storage (an image and a view of its last channels), one of them
# mutated in place: AOTAutograd merges them into a "synthetic base" and regenerates each input
# from it with as_strided. Under dynamic shapes, when two dims are equal (a square image: duck
# sizing gives them one symbol), the view's stride is s**2, an expression no graph node
# computed, and tracing fails: "RuntimeError: s15**2 ... is not tracked with proxy for
# PythonKeyTracer" (_unpack_synthetic_bases -> gen_alias_from_base). A [3, 32, 16] image, or
# static shapes, compile and match eager. torchsmith's python family found it (two aliased
# inputs, one zeroed in place); `torchsmith reduce` shrank it to `f(x, x)` with x [1, 3, 3].
import torch


def fn(img, tail):
    tail.mul_(0.5)  # in place, through a view of the same buffer
    return img.mean()


def get_inputs():
    img = torch.randn(3, 32, 32, generator=torch.Generator().manual_seed(0))
    return [img, img[1:]]


compile_kwargs = {"dynamic": True}
