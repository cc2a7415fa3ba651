# remainder(n, 0.1) for integers n: n / 0.1f is an integer minus 1.5e-8 * n, so the quotient
# rounds up in float32 and the remainder jumps from ~0.1 (exact) to ~0.
import torch


class Model(torch.nn.Module):
    def forward(self, a):
        return torch.remainder(a, 0.1)


def get_inputs():
    return [torch.arange(1, 4097, dtype=torch.float32)]
