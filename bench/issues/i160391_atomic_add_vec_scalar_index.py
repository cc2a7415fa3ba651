# Written from the facts of https://github.com/pytorch/pytorch/issues/160391 and its fix
# (pull request 185325: the CPU vectorized atomic_add store asserted that the destination index
# was already a vector, but a destination whose indexed dimension has size 1 keeps a scalar
# index); not copied. Found again by torchsmith's boundary-shape graph programs (seed 11).
# ruff: noqa
# index_add into a size-1 dimension with two or more indices: Inductor's C++ codegen raises
# AssertionError (isinstance(index, CppCSEVariable) and index.is_vec) before any kernel exists.
import torch


def f(z, idx, src):
    return z.index_add(0, idx, src)


z = torch.rand(1)
idx = torch.zeros(2, dtype=torch.long)
src = torch.rand(2)
eager = f(z, idx, src)
compiled = torch.compile(f)(z, idx, src)
print(eager, compiled)
torch.testing.assert_close(compiled, eager)
