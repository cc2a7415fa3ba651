# bf16 arithmetic cast to int64: bf16 keeps 8 bits of mantissa, so the truncation boundary is
# crossed wherever the float32 and bf16 roundings of a*b + a straddle an integer.
import torch


class Model(torch.nn.Module):
    def forward(self, a, b):
        x = a.bfloat16() * b.bfloat16() + a.bfloat16()
        return torch.relu(x).long()


def get_inputs():
    g = torch.Generator().manual_seed(1)
    return [torch.rand(4096, generator=g) * 20, torch.rand(4096, generator=g) * 3]
