# fmod(exp(log(x)) * 0.3, 0.3) where a quarter of the x are integers: there the dividend lies on
# a multiple of the divisor up to an ulp, so the result is ~0 or ~0.3.
import torch


class Model(torch.nn.Module):
    def forward(self, a):
        return torch.fmod(torch.exp(torch.log(a)) * 0.3, 0.3)


def get_inputs():
    n = torch.arange(1, 4097, dtype=torch.float32)
    return [n + 0.5 * (n % 4 != 0)]
