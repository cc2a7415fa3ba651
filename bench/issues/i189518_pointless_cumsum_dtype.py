# Written from the facts of https://github.com/pytorch/pytorch/issues/189518 (not copied).
# ruff: noqa
# cumsum(dim=1, dtype=bfloat16) over a bool tensor of ones built inside the graph:
# Inductor's post-grad pattern pointless_cumsum_replacement rewrote cumsum(full(...))
# into an arange expression using the full's dtype and ignored cumsum's dtype kwarg,
# so the compiled result came back int64 instead of bfloat16.
import torch


def f():
    ones = torch.ones((2, 4, 4), dtype=torch.bool)
    return ones.cumsum(1, dtype=torch.bfloat16)


eager = f()
compiled = torch.compile(f)()
print(eager.dtype, compiled.dtype)
assert eager.dtype == compiled.dtype, (eager.dtype, compiled.dtype)
torch.testing.assert_close(compiled, eager)
