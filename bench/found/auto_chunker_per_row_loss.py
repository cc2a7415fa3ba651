# Inductor's auto-chunker (opt-in, `auto_chunker.enable`) was designed for a single scalar
# tangent (its PR: "only enabled if there is a single scalar tangent"), but it does not check
# that: a compiled module that returns per-row losses (reduction="none", weighted or masked
# by the caller, as in RL fine-tuning) has a [N] tangent, which the chunker replaces by ones
# and feeds whole to every [N/8]-row chunk: the compile fails in the chunker's own fake-tensor
# propagation ("Attempting to broadcast a dimension of length 1024 ... [128, 1]").
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(32, 4096, bias=False)

    def forward(self, x, y):
        return F.cross_entropy(self.proj(x), y, reduction="none")


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(1024, 32, generator=g), torch.randint(0, 4096, (1024,), generator=g)]


compile_config = {"inductor.auto_chunker.enable": True}
check_options = {"grad": True}
