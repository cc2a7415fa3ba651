# Written from the facts of https://github.com/pytorch/pytorch/issues/137807 (not copied).
# ruff: noqa
# Calling torch.native_batch_norm with an out= tuple through torch.compile with the
# aot_eager backend raised an error, while eager fills the three out tensors.
import torch

torch.manual_seed(0)
args = (
    torch.rand(5, 5, 5),
    torch.rand(5),
    torch.rand(5),
    torch.rand(5),
    torch.rand(5),
    True,
    0.5,
    0.6,
)


def make_out():
    return (torch.empty(5, 5, 5), torch.empty(5), torch.empty(5))


ref_out = make_out()
torch.native_batch_norm(
    *[a.clone() if isinstance(a, torch.Tensor) else a for a in args], out=ref_out
)

out = make_out()
torch.compile(torch.native_batch_norm, backend="aot_eager")(*args, out=out)
for r, o in zip(ref_out, out):
    torch.testing.assert_close(o, r)
print("ok")
