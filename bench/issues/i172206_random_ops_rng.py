# Written from the facts of https://github.com/pytorch/pytorch/issues/172206 (not copied).
# ruff: noqa
# A model with random operations (dropout in training mode plus rand_like noise) gives
# different outputs compiled vs eager under the same seed. Maintainer: Inductor generates
# its own random numbers; set torch._inductor.config.fallback_random = True to match eager.
import torch
import torch.nn as nn


class Noisy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.drop = nn.Dropout(p=0.3)

    def forward(self, x):
        h = self.drop(torch.relu(self.fc(x)))
        return h + 0.01 * torch.rand_like(h)


torch.manual_seed(0)
m = Noisy().train()
x = torch.randn(8, 16)

torch.manual_seed(123)
eager = m(x)
torch.manual_seed(123)
compiled = torch.compile(m)(x)
print("default RNG   max diff:", (eager - compiled).abs().max().item())

torch._inductor.config.fallback_random = True
torch._dynamo.reset()
torch.manual_seed(123)
eager = m(x)
torch.manual_seed(123)
compiled = torch.compile(m)(x)
print("fallback_random max diff:", (eager - compiled).abs().max().item())
