# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU (an AVX-512 machine).
# FlexAttention compiled on CPU with torch._inductor.config.cpp.simdlen = 256 (AVX2 code on an
# AVX-512 machine, a documented setting) returns wrong values, NaN on some seeds, even with no
# score_mod. The default simdlen and 512 are exact; plain softmax attention under simdlen 256
# is exact; torch 2.6.0 is exact under simdlen 256 (a regression).
# Found by `torchsmith fuzz --generator hop --config-space default` (the config space drew
# `inductor.cpp.simdlen: 256` for a flex program; the campaign's bisection kept that setting).
# torchsmith checks it as a program (`torchsmith check` this file: mismatch at inductor).
import torch
from torch.nn.attention.flex_attention import flex_attention


def fn(q, k, v):
    return flex_attention(q, k, v)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    return [torch.randn(1, 2, 8, 8, generator=g) for _ in range(3)]


compile_config = {"inductor.cpp.simdlen": 256}


if __name__ == "__main__":
    q, k, v = get_inputs()
    ref = fn(q.double(), k.double(), v.double())
    torch._inductor.config.cpp.simdlen = 256
    out = torch.compile(fn)(q, k, v)
    print("eager max error   ", (fn(q, k, v).double() - ref).abs().max().item())
    print("compiled max error", (out.double() - ref).abs().max().item())  # ~0.8 on 2.13.0
