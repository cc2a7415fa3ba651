# Written from the facts of https://github.com/pytorch/pytorch/issues/197108 (not copied).
# ruff: noqa
# std_mean (as var_mean, in i197108_var_mean_empty.py) of an empty tensor: eager returns (nan, nan); Inductor lowers the pair
# to a Welford reduction whose mean identity is 0, so the compiled mean is 0. instead of nan.
import torch


def f(x):
    return torch.std_mean(x)


x = torch.zeros(0)
eager = f(x)
compiled = torch.compile(f)(x)
print(eager, compiled)
torch.testing.assert_close(compiled, eager, equal_nan=True)
