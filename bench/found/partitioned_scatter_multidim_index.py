# Inductor's partitioned-scatter pass (opt-in on CPU/CUDA, `partitioned_scatter_enabled`; on by
# default on ROCm since PR #184365) rewrites a large index_put(accumulate=True) into a scatter
# into P copies of the output. For an index with more than one dim it flattens the values as
# values.reshape([index.numel()] + values.shape[index.ndim:]), which assumes the index sits at
# dim 0 and the values are not broadcast. The gradient of x[:, idx] with a 2-d idx is an
# index_put at dim 1, and the compile fails: "shape '[4096, 64]' is invalid for input of size
# 16384". (A 2-d index at dim 0 with broadcast values fails the same way.)
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(4, 8, generator=torch.Generator().manual_seed(0)))

    def forward(self, idx):
        return self.table[:, idx].sin()  # [4, 64, 64]; its gradient scatters 4096 rows


def get_inputs():
    return [torch.randint(0, 8, (64, 64), generator=torch.Generator().manual_seed(1))]


compile_config = {"inductor.partitioned_scatter_enabled": True}
check_options = {"grad": True}
