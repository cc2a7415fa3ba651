# Written from the facts of https://github.com/pytorch/pytorch/issues/159239 (not copied).
# ruff: noqa
# Rotary position embedding in bfloat16: compiled and eager outputs differ, but measured
# against a float32 computation the compiled result is the more accurate one (Inductor
# keeps the fused intermediates in fp32). Maintainers: no bitwise equivalence is promised.
import torch


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def apply_rope(q, k, cos, sin):
    cos = cos.unsqueeze(1)
    sin = sin.unsqueeze(1)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


torch.manual_seed(0)
B, H, T, D = 2, 4, 64, 32
q = torch.randn(B, H, T, D, dtype=torch.bfloat16)
k = torch.randn(B, H, T, D, dtype=torch.bfloat16)
angles = torch.arange(T)[:, None] * torch.rand(D // 2)[None, :] * 3.0
emb = torch.cat([angles, angles], dim=-1)
cos = emb.cos()[None].expand(B, T, D).to(torch.bfloat16)
sin = emb.sin()[None].expand(B, T, D).to(torch.bfloat16)

eager_q, eager_k = apply_rope(q, k, cos, sin)
comp_q, comp_k = torch.compile(apply_rope)(q, k, cos, sin)
ref_q, ref_k = apply_rope(q.float(), k.float(), cos.float(), sin.float())

for name, e, c, r in (("q", eager_q, comp_q, ref_q), ("k", eager_k, comp_k, ref_k)):
    print(name, "max |eager-compiled|", (e.float() - c.float()).abs().max().item())
    print(name, "MSE eager vs fp32   ", ((e.float() - r) ** 2).mean().item())
    print(name, "MSE compiled vs fp32", ((c.float() - r) ** 2).mean().item())
