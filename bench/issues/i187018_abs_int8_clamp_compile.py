# pytorch/pytorch#187018 (std::abs promotes a small integer to int in Inductor's C++ code;
# closed by PR #187024, still so in 2.13.0): abs of an int8 (int16, uint8) tensor, then clamp,
# does not compile: "no matching function for call to max_propagate_nan(int&, signed char&)".
# torchsmith's reduced form of a default-mix finding (the issue's own form is a silent wrong
# sum of uint8 values).
import torch


def fn(y):
    return y.abs().clamp(0)


def get_inputs():
    return [torch.tensor([0, -3, 5], dtype=torch.int8)]
