# Inductor's auto-chunker (opt-in, `auto_chunker.enable`) cuts the rows of a large matmul output
# into `num_chunk` pieces with torch.chunk, then calls one subgraph per chunk for i in
# range(num_chunk). torch.chunk returns fewer pieces when the rows do not split evenly enough
# (1000 rows into 64 chunks: pieces of 16, so 63 of them), and the compile fails with
# "IndexError: list index out of range". 64 chunks is the setting the chunker's own PR
# benchmarked; the default 8 fails the same way for 41 rows.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(32, 4096, bias=False)

    def forward(self, x, y):
        return F.cross_entropy(self.proj(x), y)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(1000, 32, generator=g), torch.randint(0, 4096, (1000,), generator=g)]


compile_config = {"inductor.auto_chunker.enable": True, "inductor.auto_chunker.num_chunk": 64}
check_options = {"grad": True}
