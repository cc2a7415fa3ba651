# Inductor's auto-chunker (opt-in, `auto_chunker.enable`, TORCHINDUCTOR_AUTO_CHUNKER=1) splits a
# training graph's large matmul output into chunks along dim 0 and propagates that through the
# graph. Its reduction rule asks "is the chunked dim among the reduced dims?" without wrapping
# negative dims: a softmax over dim -2 (the chunked rows, spelled negatively) is taken as a
# reduction over another dim, so each chunk normalizes over its own rows. dim=0 is left alone.
# The same bookkeeping fails to compile for logits.exp().sum([-2, -1]) ("IndexError: list
# assignment index out of range") and, when a reduction without keepdim removes a dim before
# the chunked one (logits.unsqueeze(0).exp().sum([0])), leaves the chunk dim unshifted
# ("KeyError: 2" in propagate_permute): one cause, one fix (wrap and shift the dims).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(32, 4096, bias=False)

    def forward(self, x):
        logits = self.proj(x)  # [1024, 4096]: the chunker's amplifier
        return (logits.softmax(dim=-2) * logits).sum()


def get_inputs():
    return [torch.randn(1024, 32, generator=torch.Generator().manual_seed(0))]


compile_config = {"inductor.auto_chunker.enable": True}
check_options = {"grad": True}
