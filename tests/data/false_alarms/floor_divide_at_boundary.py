# Floor division of integers by 0.1: the exact quotient is just below an integer, so
# floor(a / b) after rounding a / b lands one higher than ATen's exact floor division.
import torch


class Model(torch.nn.Module):
    def forward(self, a):
        return torch.div(a, 0.1, rounding_mode="floor")


def get_inputs():
    return [torch.arange(1, 4097, dtype=torch.float32)]
