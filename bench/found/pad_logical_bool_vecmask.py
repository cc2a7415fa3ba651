# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (a regression: 2.6.0
# compiles it). A logical op of two bool tensors (logical_and/or/xor, or ^), then a constant
# pad: Inductor's vectorized C++ kernel does not compile ("operands to '?:' have different
# types 'VecMask<int, 1>' and 'VecMask<float, 1>'"); `x != y` padded compiles. torchsmith
# checks it as a program (`torchsmith check` this file: crash at inductor).
import torch
import torch.nn.functional as F


def fn(x, v):
    return F.pad(torch.logical_and(x > 0, v), (0, 0, 3, 0))


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(8, 16, generator=g), torch.rand(8, 16, generator=g) > 0.5]


if __name__ == "__main__":
    x, v = get_inputs()
    print("eager ok:", fn(x, v).shape)
    print("compiled equal:", torch.equal(torch.compile(fn)(x, v), fn(x, v)))
