# Written from the facts of https://github.com/pytorch/pytorch/issues/171370 (not copied).
# ruff: noqa
# aten.unfold_backward on an int64 gradient of shape (1, 64, 32) for input sizes
# [1, 64, 32], dim=1, size=8, step=4: the eager backend runs, Inductor failed.
import torch


def model_func(grad_in):
    return torch.ops.aten.unfold_backward(grad_in, input_sizes=[1, 64, 32], dim=1, size=8, step=4)


torch.manual_seed(0)
grad_in = torch.randint(-32, 32, [1, 64, 32], dtype=torch.int64)
out1 = torch.compile(model_func, backend="eager")(grad_in)
out2 = torch.compile(model_func, backend="inductor")(grad_in)
print(out1.shape, out2.shape)
torch.testing.assert_close(out2, out1)
