# ruff: noqa
# A LoRA-style adapter switched on between two calls by writing an attribute on the compiled
# module: the write reaches the original module, as with torch.compile's OptimizedModule.
import torch


class LoraLinear(torch.nn.Module):
    def __init__(self, n, rank):
        super().__init__()
        self.base = torch.nn.Linear(n, n)
        self.down = torch.nn.Linear(n, rank, bias=False)
        self.up = torch.nn.Linear(rank, n, bias=False)
        self.use_adapter = False

    def forward(self, x):
        y = self.base(x)
        if self.use_adapter:
            y = y + self.up(self.down(x))
        return torch.relu(y)


torch.manual_seed(0)
layer = LoraLinear(16, 4)
m = torch.compile(layer)
x = torch.randn(8, 16)
print(m(x).sum())
m.use_adapter = True  # reaches layer.use_adapter
print(m(x).sum())
assert layer.use_adapter and isinstance(m, torch.nn.Module)
assert m._orig_mod is layer and len(list(m.parameters())) == 4
assert all(k.startswith("_orig_mod.") for k in m.state_dict())
m.eval()
assert not layer.training
print(m(x).sum())
