"""`torch._inductor.config.triton.decompose_sort_ops = True` (opt-in; its sort-based lowerings
run on CPU too) lowers `torch.mode` with `ops.or_` for the run boundaries; the C++ backend's
vector ops have no `or_`, so along a dim that is not the last one a scalar `bool` meets a
`VecMask` and the kernel does not compile: "no match for 'operator|' (operand types are
'VecMask<float,1>' and 'bool')"."""

import torch

compile_config = {"inductor.triton.decompose_sort_ops": True}


def fn(x):
    return torch.mode(x, 0)


def get_inputs():
    return [torch.tensor([[1.0, 2.0], [1.0, 3.0], [2.0, 3.0]])]
