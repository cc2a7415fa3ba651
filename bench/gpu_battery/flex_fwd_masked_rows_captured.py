# Flex attention (Inductor Triton templates) vs eager flex (math path) vs an fp64
# hand-written masked-softmax reference.  Covers: fully masked rows (documented
# semantics: out = 0, lse = -inf; eager _math_attention does exactly that),
# q_len/kv_len not multiples of the block size, head_dim 80 (not a power of 2),
# score_mod with captured buffers indexed by b/h/q/kv, mask_mod with a captured
# per-batch length tensor (a whole batch fully masked), return_lse, GQA on the
# decode path (q_len < 128), backward incl. grads of a captured buffer, dynamic=True.
# Rule per tensor: BUG if compiled raises (eager ran), or compiled has NaN where the
# fp64 reference is finite, or -inf pattern of lse differs from reference, or
# max|compiled - ref64| > max(10 * max|eager - ref64|, tol) with tol = 2e-2 (fp16/bf16),
# 1e-3 (fp32).  OK otherwise.
import math
import os
import warnings

import torch
from torch.nn.attention.flex_attention import create_block_mask, flex_attention

DEV = os.environ.get("DEV", "cuda")
warnings.filterwarnings("ignore")
torch.manual_seed(0)


def ref64(q, k, v, bias_fn, mask_fn, scale):
    B, Hq, L, D = q.shape
    Hkv, S = k.shape[1], k.shape[2]
    G = Hq // Hkv
    q64, k64, v64 = q.double(), k.double(), v.double()
    k64 = k64.repeat_interleave(G, dim=1)
    v64 = v64.repeat_interleave(G, dim=1)
    b = torch.arange(B, device=q.device).view(B, 1, 1, 1)
    h = torch.arange(Hq, device=q.device).view(1, Hq, 1, 1)
    m = torch.arange(L, device=q.device).view(1, 1, L, 1)
    n = torch.arange(S, device=q.device).view(1, 1, 1, S)
    s = (q64 @ k64.transpose(-1, -2)) * scale
    s = bias_fn(s, b, h, m, n)
    keep = mask_fn(b, h, m, n).expand_as(s)
    s = s.masked_fill(~keep, float("-inf"))
    lse = torch.logsumexp(s, -1)
    full = torch.isneginf(lse)
    p = torch.softmax(s, -1).masked_fill(full[..., None], 0.0)
    out = p @ v64
    return out, lse


def cmp(name, t_c, t_e, t_r, tol):
    t_c, t_e = t_c.double(), t_e.double()
    fin = torch.isfinite(t_r)
    if (torch.isneginf(t_r) != torch.isneginf(t_c)).any():
        return (
            f"{name}:-inf-pattern-differs(ref#{int(torch.isneginf(t_r).sum())},comp#{int(torch.isneginf(t_c).sum())})",
            True,
        )
    if (torch.isnan(t_c) & fin).any():
        return f"{name}:NaN-where-ref-finite(#{int((torch.isnan(t_c) & fin).sum())})", True
    e = (t_e - t_r)[fin].abs().max().item() if fin.any() else 0.0
    c = (t_c - t_r)[fin].abs().max().item() if fin.any() else 0.0
    bad = not (c <= max(10 * e, tol))
    return f"{name}:eager_err={e:.2e},compiled_err={c:.2e}", bad


def report(tag, parts):
    bad = any(b for _, b in parts)
    print(f"RESULT {tag} {'BUG' if bad else 'OK'} " + " ".join(p for p, _ in parts))


def fwd_case(
    tag, dt, B, Hq, Hkv, L, S, D, score_mod, mask_mod, bias_fn, mask_fn, dynamic=False, extra=None
):
    q = torch.randn(B, Hq, L, D, device=DEV, dtype=dt)
    k = torch.randn(B, Hkv, S, D, device=DEV, dtype=dt)
    v = torch.randn(B, Hkv, S, D, device=DEV, dtype=dt)
    scale = 1.0 / math.sqrt(D)
    bm = create_block_mask(mask_mod, B, 1, L, S, device=DEV)
    gqa = Hq != Hkv
    tol = 1e-3 if dt == torch.float32 else 2e-2
    try:
        o_e, l_e = flex_attention(
            q, k, v, score_mod=score_mod, block_mask=bm, enable_gqa=gqa, return_lse=True
        )
    except Exception as ex:
        print(f"RESULT {tag} ERROR eager raised {type(ex).__name__}: {str(ex)[:150]}")
        return
    o_r, l_r = ref64(q, k, v, bias_fn, mask_fn, scale)
    for backend in ["aot_eager", "inductor"]:
        torch._dynamo.reset()
        try:
            f = torch.compile(flex_attention, backend=backend, dynamic=dynamic)
            o_c, l_c = f(
                q, k, v, score_mod=score_mod, block_mask=bm, enable_gqa=gqa, return_lse=True
            )
            if DEV == "cuda":
                torch.cuda.synchronize()
        except Exception as ex:
            verdict = (
                "ERROR cpu-unsupported:"
                if DEV == "cpu" and "NotImplementedError" in str(ex)
                else "BUG"
            )
            print(
                f"RESULT {tag}[{backend}] {verdict} compiled raised {type(ex).__name__}: {str(ex).replace(chr(10), ' ')[:200]}"
            )
            continue
        report(
            f"{tag}[{backend}]", [cmp("out", o_c, o_e, o_r, tol), cmp("lse", l_c, l_e, l_r, tol)]
        )


# ---------- A: full path, fp16, odd lengths, D=80, captured bias[h,q,kv], first rows fully masked
B, H, L, S, D = 2, 3, 200, 333, 80
MASKED = 7
biasA = torch.randn(H, L, S, device=DEV)


def smA(score, b, h, q, kv):
    return score + biasA[h, q, kv]


def mmA(b, h, q, kv):
    return (q >= MASKED) & (kv <= q + 50)


fwd_case(
    "flex_A_full_fp16_maskedrows_bias_hqkv",
    torch.float16,
    B,
    H,
    H,
    L,
    S,
    D,
    smA,
    mmA,
    lambda s, b, h, m, n: s + biasA.double()[h.view(-1)][None].expand(B, -1, -1, -1),
    lambda b, h, m, n: (m >= MASKED) & (n <= m + 50),
)

# ---------- B: decode path (q_len=5 < 128), GQA 8/2, per-batch kv length captured (batch 1 fully masked),
#               per-q-head slope captured in score_mod (ALiBi-like)
Bb, Hq, Hkv, Lb, Sb, Db = 2, 8, 2, 5, 300, 64
kv_lens = torch.tensor([257, 0], device=DEV)
slopes = torch.rand(Hq, device=DEV)


def smB(score, b, h, q, kv):
    return score - slopes[h] * (q + Sb - Lb - kv).abs()


def mmB(b, h, q, kv):
    return kv < kv_lens[b]


fwd_case(
    "flex_B_decode_gqa_fp16_batchfullymasked_alibi",
    torch.float16,
    Bb,
    Hq,
    Hkv,
    Lb,
    Sb,
    Db,
    smB,
    mmB,
    lambda s, b, h, m, n: s - slopes.double().view(1, Hq, 1, 1) * (m + Sb - Lb - n).abs(),
    lambda b, h, m, n: n < kv_lens.view(Bb, 1, 1, 1),
)

# ---------- D: same as A in bf16 with dynamic=True
fwd_case(
    "flex_D_full_bf16_dynamic",
    torch.bfloat16,
    B,
    H,
    H,
    L,
    S,
    D,
    smA,
    mmA,
    lambda s, b, h, m, n: s + biasA.double()[h.view(-1)][None].expand(B, -1, -1, -1),
    lambda b, h, m, n: (m >= MASKED) & (n <= m + 50),
    dynamic=True,
)
