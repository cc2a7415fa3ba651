# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (x86), default settings.
# Known root cause, new symptom (not counted as new): `x.sum(dtype=torch.uint8)` (or int8; also
# an int32/int64 input summed with dtype=uint8/int8) over 8 or more elements counts the vector
# lanes the kernel never loads: the C++ kernel loads `tiling_factor` (8) lanes into a 32-lane
# `Vectorized<uint8_t>` (`loadu(ptr, 8)` fills the other lanes with 1 on x86) and the final
# `vec_reduce_all` sums all 32: eight ones sum to 32 compiled, 8 eager (no wrap-around
# involved). #191499 (open) reports the same leak for min/max/argmin/argmax, and its fix PR
# #191543 (open) is titled for min/max only: worth a comment there.
import torch


def fn(x):
    return x.sum(-1, dtype=torch.uint8)


def get_inputs():
    return [torch.ones(4, 16, dtype=torch.uint8)]
