# Written from the facts of https://github.com/pytorch/pytorch/issues/191571 (not copied).
# ruff: noqa
# scatter_add_ into a (1, C) accumulator followed by index_select from it in the same
# graph: Inductor fused the two and read the accumulator before the scatter had
# written it, so the compiled function returned zeros.
import torch


def f(x, idx):
    acc = torch.zeros(1, x.shape[1], dtype=x.dtype)
    acc.scatter_add_(0, idx.unsqueeze(-1).expand(-1, x.shape[1]), x)
    return torch.index_select(acc, 0, idx)


torch.manual_seed(0)
x = torch.randn(8, 4)
idx = torch.zeros(8, dtype=torch.long)
eager = f(x, idx)
compiled = torch.compile(f)(x, idx)
print("max |eager - compiled| =", (eager - compiled).abs().max().item())
print("eager row0   :", eager[0].tolist())
print("compiled row0:", compiled[0].tolist())
torch.testing.assert_close(compiled, eager)
