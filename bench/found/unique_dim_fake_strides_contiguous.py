# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU with
# capture_dynamic_output_shape_ops (which torch.unique needs to be traced).
# `torch.unique(x, dim=1)` (also `unique_consecutive(x, dim=1)`): the eager CPU kernel returns a
# non-contiguous tensor (strides (3, 6, 1) for a (2, 4, 3) input), the fake implementation
# declares a contiguous one (fake_impls.py, `_unique`: `arg.new_empty(...)`), and Inductor
# trusts it: its size/stride assertion fails ("stride 3==9 at dim=0"), and with
# `size_asserts=False` 10 of 18 values are wrong. aot_eager is right.
import torch


def fn(x):
    return torch.unique(x, dim=1) + 1


def get_inputs():
    x = torch.tensor(
        [
            [[0.0, 1.0, 0.0], [1.0, 1.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
            [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]],
        ]
    )
    return [x]


compile_config = {"dynamo.capture_dynamic_output_shape_ops": True}
