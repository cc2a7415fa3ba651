# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# With capture_dynamic_output_shape_ops (nonzero's length an unbacked size): a bmm of rows
# selected by a mask, `v.transpose(1, 2) @ v` (einsum "ni,nj->ij" and 3-d matmul alike), fails
# in Inductor's lowering: "GuardOnDataDependentSymNode: Could not guard on data-dependent
# expression Eq(u0, 1)" (a LoweringException, not a graph break). is_preferred_layout_as_bmm_input
# (kernel/bmm.py, from may_require_contiguous) compares the sizes with plain Python `== 1`.
# aot_eager_decomp_partition runs; eager is 2.5e-7 from fp64.
import torch


def fn(x, mask):
    idx = mask.nonzero().squeeze(1)
    v = x.index_select(0, idx).unsqueeze(0)
    return torch.bmm(v.transpose(1, 2), v)


def get_inputs():
    return [torch.randn(8, 4, generator=torch.Generator().manual_seed(0)), torch.arange(8) < 3]


compile_config = {"dynamo.capture_dynamic_output_shape_ops": True}
