# Written from the facts of https://github.com/pytorch/pytorch/issues/183986 (not copied).
# ruff: noqa
# index_add (out of place) whose self is an expanded, stride-0 tensor: eager returns a
# fresh dense result, the compiled graph kept the stride-0 layout so every row aliased
# one row and accumulated all updates.
import torch


def f(base, idx, src):
    return torch.index_add(base, 0, idx, src)


base = torch.zeros(8).expand(4, 8)
idx = torch.tensor([0, 0, 1])
src = torch.ones(3, 8)
eager = f(base, idx, src)
compiled = torch.compile(f)(base, idx, src)
print("eager rows   :", eager[:, 0].tolist())
print("compiled rows:", compiled[:, 0].tolist())
print("max_diff:", (eager - compiled).abs().max().item())
torch.testing.assert_close(compiled, eager)
