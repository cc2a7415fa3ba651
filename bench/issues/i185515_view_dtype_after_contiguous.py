# Written from the facts of https://github.com/pytorch/pytorch/issues/185515 (not copied).
# ruff: noqa
# x.t().contiguous().view(torch.uint8): eager bitcasts the now-contiguous tensor; the
# Inductor lowering of aten.view.dtype still saw the transposed strides and raised
# "self.stride(-1) must be 1 to view Float as Byte".
import torch


def bytes_of(x):
    return x.contiguous().view(torch.uint8)


x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=torch.float32).t()
ref = bytes_of(x)
out = torch.compile(bytes_of, backend="inductor")(x)
print(ref.shape, out.shape)
assert torch.equal(ref, out)
