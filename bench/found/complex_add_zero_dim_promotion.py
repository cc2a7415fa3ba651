# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# Default settings: `x + s` of a complex64 tensor and a 0-d complex128 tensor is complex64 in
# eager (a 0-d tensor of the same kind does not promote a dimensioned one) but complex128
# compiled: Inductor's complex aten.add decomposition (decomposition.py) computes the dtype with
# torch.promote_types and reshapes 0-d inputs to [1] first. Later ops see the wrong buffer:
# `.view(torch.float32)` gives 12 garbage values for eager's 6. From aot_eager_decomp_partition
# on (Inductor's decomposition table); complex32 + a 0-d complex64 alike.
import torch


def fn(x, s):
    return x + s


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [
        torch.randn(3, generator=g, dtype=torch.complex64),
        torch.tensor(1 + 2j, dtype=torch.complex128),
    ]
