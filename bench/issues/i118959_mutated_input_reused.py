# Written from the facts of https://github.com/pytorch/pytorch/issues/118959 (not copied).
# ruff: noqa
# The reported "different behaviour" of prod / fmin / special_entr / full_like under
# torch.compile came from the model mutating its inputs in place: the eager run changed
# the tensors before the compiled run used them. Maintainer: not a compiler bug, clone
# the inputs for each run.
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y):
        x.mul_(1.5)
        a = torch.prod(x, dim=1)
        b = torch.fmin(x, y)
        c = torch.special.entr(y.abs_())
        d = torch.full_like(a, 2.0)
        return a + d, b, c


torch.manual_seed(0)
inputs = {"x": torch.rand(3, 4) + 0.5, "y": torch.randn(3, 4)}
model = Model()
ret_eager = model(**inputs)  # mutates inputs["x"], inputs["y"]
ret_compiled = torch.compile(model)(**inputs)  # runs on the already-mutated tensors
for e, c in zip(ret_eager, ret_compiled):
    print("max diff (shared inputs):", (e - c).abs().max().item())

torch.manual_seed(0)
fresh = {"x": torch.rand(3, 4) + 0.5, "y": torch.randn(3, 4)}
ret_eager = model(**{k: v.clone() for k, v in fresh.items()})
ret_compiled = torch.compile(model)(**{k: v.clone() for k, v in fresh.items()})
for e, c in zip(ret_eager, ret_compiled):
    torch.testing.assert_close(c, e)
print("with cloned inputs: identical")
