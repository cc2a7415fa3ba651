# argmax over fp16 exponentials: fp16 has few distinct values, so many rows hold exact ties that
# eager's fp16 rounding and Inductor's float32 intermediates break differently.
import torch


class Model(torch.nn.Module):
    def forward(self, a):
        return (a.half() * 3).exp().argmax(-1)


def get_inputs():
    return [torch.randn(256, 64, generator=torch.Generator().manual_seed(1))]
