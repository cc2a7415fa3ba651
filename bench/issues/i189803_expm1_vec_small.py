# A form of pytorch/pytorch#189803 (closed by PR #190533, after 2.13.0): Inductor's CPU
# vectorized code computes expm1(x) as exp(x) - 1, which cancels for small |x| (the point of
# expm1): expm1 of 1e-10 is 0 instead of 1e-10, of 1e-7 is 1.19e-7. The scalar path (a
# tensor too short to vectorize, static shapes) calls std::expm1 and is right. Met by the
# graph family under --grad --dynamic (runs/graph-grad-dyn, seed 24083).
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.expm1(x)


def get_inputs():
    return [torch.empty(16).uniform_(1e-10, 1e-9, generator=torch.Generator().manual_seed(0))]
