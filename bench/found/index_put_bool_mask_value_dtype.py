# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# `x[mask] = v` (index_put with one boolean mask) where `v` is a 0-d or one-element tensor of
# another dtype: eager casts the value to x's dtype (int32 stays int32: 1.7 is stored as 1);
# Inductor's `index_put_as_masked_fill` (torch/_inductor/lowering.py) returns
# `where(mask, value, self)` without casting the value, and `mutate_to` takes the promoted
# buffer as x itself: x comes back float32 holding 1.7, and every later op in the graph
# computes on it (here `x * 3`: 5.1 where eager gives 3). Also bool x with an int64 value
# (int64 result) and float16 x with a float32 [1] value (float32 result). The
# `aot_eager_decomp_partition` rung is right: Inductor's lowering.
import torch


def fn(x, mask, v):
    y = x.clone()
    y[mask] = v
    return y * 3


def get_inputs():
    x = torch.tensor([-5, -3, 2, 7], dtype=torch.int32)
    return [x, torch.tensor([True, True, False, True]), torch.tensor(1.7)]


if __name__ == "__main__":
    args = get_inputs()
    print("eager:", fn(*args), "compiled:", torch.compile(fn)(*args))
