# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `torch.index_put(x, (mask,), v)` with a one-element value that has more dims than x
# (`v` of shape [1, 1], x of shape [4]): eager takes its masked-fill path and returns x's shape;
# Inductor's `index_put_as_masked_fill` (torch/_inductor/lowering.py) broadcasts
# `where(mask, value, self)` to the value's rank and `mutate_to` accepts the mismatched size:
# "AssertionError: size=[1, 4], stride=[1]" (the same missing cast/shape step as
# index_put_bool_mask_value_dtype.py, another symptom).
import torch


def fn(x, mask, v):
    return torch.index_put(x, (mask,), v)


def get_inputs():
    return [torch.randn(4), torch.tensor([True, True, False, True]), torch.tensor([[3.0]])]


if __name__ == "__main__":
    args = get_inputs()
    print("eager:", fn(*args), "compiled:", torch.compile(fn)(*args))
