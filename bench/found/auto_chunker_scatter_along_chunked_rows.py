# Inductor's auto-chunker (opt-in, `auto_chunker.enable`) cuts a large matmul output into row
# chunks and propagates the chunking; its rule for scatter_add (like gather and scatter)
# copies the chunking to every argument without looking at the op's dim. A segment sum of the
# rows, new_zeros(G, V).scatter_add(0, group.expand(N, V), logits), scatters along the chunked
# rows: each chunk adds its rows into its own [N/8]-row slice of the zeros with the global
# group ids, so the compiled sum is wrong (or an index is out of bounds: zeros_like(logits)).
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(32, 4096, bias=False)

    def forward(self, x, group):
        logits = self.proj(x)  # [1024, 4096]: the chunker's amplifier
        index = group.unsqueeze(1).expand(-1, logits.shape[1])
        per_group = logits.new_zeros(16, 4096).scatter_add(0, index, logits)  # rows by group
        return per_group.tanh().sum()


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(1024, 32, generator=g), torch.randint(0, 16, (1024,), generator=g)]


compile_config = {"inductor.auto_chunker.enable": True}
check_options = {"grad": True}
