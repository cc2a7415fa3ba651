# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU.
# torch.export of flex_attention whose score_mod reads a captured tensor that is a view (here
# `bias = table[:2]`, a slice of a bigger tensor) fails while tracing:
# "RuntimeError: 4*s.. (<class 'torch.SymInt'>, ...) is not tracked with proxy for
# _ModuleStackTracer". The same call exports when the captured tensor is not a view
# (`table[:2].clone()`), and torch.compile(fullgraph=True) of the same module runs.
# torchsmith checks it as a program (`torchsmith check` this file: crash at export).
import torch
from torch.nn.attention.flex_attention import flex_attention


def fn(q, k, v, bias):
    def score_mod(score, b, h, q_idx, kv_idx):
        return score + bias[h]

    return flex_attention(q, k, v, score_mod=score_mod)


def get_inputs():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 2, 64, 32, generator=g) for _ in range(3))
    return [q, k, v, torch.randn(4, generator=g)[:2]]  # bias: a view


compile_kwargs = {"backend": "aoti"}


if __name__ == "__main__":

    class M(torch.nn.Module):
        def forward(self, q, k, v, bias):
            return fn(q, k, v, bias)

    args = get_inputs()
    print("compiled", torch.compile(M(), fullgraph=True)(*args).shape)
    fresh = [*args[:3], args[3].clone()]
    print(
        "exported, bias not a view", torch.export.export(M(), tuple(fresh)).module()(*fresh).shape
    )
    torch.export.export(M(), tuple(args))  # raises: ... is not tracked with proxy
