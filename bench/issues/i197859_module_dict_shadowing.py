# Written from the facts of https://github.com/pytorch/pytorch/issues/197859 (not copied).
# ruff: noqa
# A compiled wrapper calls self.sub (a registered Linear). An instance __dict__ entry is
# then added with object.__setattr__, shadowing the submodule: eager uses the new one,
# the compiled module kept using the old submodule.
import torch
import torch.nn as nn


class Wrapper(nn.Module):
    def __init__(self):
        super().__init__()
        self.sub = nn.Linear(4, 4, bias=False)
        with torch.no_grad():
            self.sub.weight.copy_(torch.eye(4))

    def forward(self, x):
        return self.sub(x)


model = Wrapper()
x = torch.arange(4.0)
compiled = torch.compile(model)
print(compiled(x))

replacement = nn.Linear(4, 4, bias=False)
with torch.no_grad():
    replacement.weight.fill_(5.0)
object.__setattr__(model, "sub", replacement)

want = model(x)
got = compiled(x)
print("eager   :", want)
print("compiled:", got)
torch.testing.assert_close(got, want)
