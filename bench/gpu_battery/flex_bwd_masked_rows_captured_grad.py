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


# ---------- C: backward, fp32, captured bias[b,h] requiring grad, fully masked rows, odd lengths
Bc, Hc, Lc, Sc, Dc = 2, 2, 150, 77, 48
bias_bh = (torch.randn(Bc, Hc, device=DEV) * 0.1).requires_grad_()
pos = torch.randn(Lc, Sc, device=DEV) * 0.5


def smC(score, b, h, q, kv):
    return score + bias_bh[b, h] * pos[q, kv]


def mmC(b, h, q, kv):
    return (q % 17 != 3) & (kv >= (q % 5))


def run_bwd(backend):
    torch.manual_seed(1)
    q = torch.randn(Bc, Hc, Lc, Dc, device=DEV, requires_grad=True)
    k = torch.randn(Bc, Hc, Sc, Dc, device=DEV, requires_grad=True)
    v = torch.randn(Bc, Hc, Sc, Dc, device=DEV, requires_grad=True)
    bm = create_block_mask(mmC, Bc, 1, Lc, Sc, device=DEV)
    fa = flex_attention if backend is None else torch.compile(flex_attention, backend=backend)
    out = fa(q, k, v, score_mod=smC, block_mask=bm)
    g = torch.randn_like(out)
    gs = torch.autograd.grad(out, (q, k, v, bias_bh), g)
    return (out,) + gs, (q, k, v, g)


try:
    res_e, (q, k, v, g) = run_bwd(None)
except Exception as ex:
    print(
        f"RESULT flex_C_bwd_fp32_captured_grad ERROR eager raised {type(ex).__name__}: {str(ex)[:150]}"
    )
    res_e = None
if res_e is not None:
    q64, k64, v64 = (t.detach().double().requires_grad_() for t in (q, k, v))
    b64 = bias_bh.detach().double().requires_grad_()
    bi = torch.arange(Bc, device=DEV).view(Bc, 1, 1, 1)
    hi = torch.arange(Hc, device=DEV).view(1, Hc, 1, 1)
    mi = torch.arange(Lc, device=DEV).view(1, 1, Lc, 1)
    ni = torch.arange(Sc, device=DEV).view(1, 1, 1, Sc)
    s = (q64 @ k64.transpose(-1, -2)) / math.sqrt(Dc) + b64.view(Bc, Hc, 1, 1) * pos.double()
    keep = ((mi % 17 != 3) & (ni >= (mi % 5))).expand_as(s)
    s = s.masked_fill(~keep, float("-inf"))
    full = (~keep).all(-1, keepdim=True)
    p = torch.softmax(s.masked_fill(full, 0.0), -1).masked_fill(full, 0.0)
    o64 = p @ v64
    gs64 = torch.autograd.grad(o64, (q64, k64, v64, b64), g.double())
    res_r = (o64,) + gs64
    for backend in ["aot_eager", "inductor"]:
        torch._dynamo.reset()
        tag = f"flex_C_bwd_fp32_captured_grad[{backend}]"
        try:
            res_c, _ = run_bwd(backend)
            if DEV == "cuda":
                torch.cuda.synchronize()
        except Exception as ex:
            print(
                f"RESULT {tag} BUG compiled raised {type(ex).__name__}: {str(ex).replace(chr(10), ' ')[:200]}"
            )
            continue
        names = ["out", "dq", "dk", "dv", "dbias"]
        report(tag, [cmp(nm, c, e, r, 1e-3) for nm, c, e, r in zip(names, res_c, res_e, res_r)])

# ---------- E: rows fully masked through score_mod (-inf) instead of mask_mod, no block mask,
#               fwd + bwd fp32, captured bias[b,h] requiring grad, q_len=130, kv_len=70
Be, He, Le, Se, De = 2, 2, 130, 70, 32
bias_e = (torch.randn(Be, He, device=DEV) * 0.1).requires_grad_()
pos_e = torch.randn(Le, Se, device=DEV) * 0.5


def smE(score, b, h, q, kv):
    return torch.where((q % 13) == 5, -float("inf"), score + bias_e[b, h] * pos_e[q, kv])


def run_bwd_e(backend):
    torch.manual_seed(2)
    q = torch.randn(Be, He, Le, De, device=DEV, requires_grad=True)
    k = torch.randn(Be, He, Se, De, device=DEV, requires_grad=True)
    v = torch.randn(Be, He, Se, De, device=DEV, requires_grad=True)
    fa = flex_attention if backend is None else torch.compile(flex_attention, backend=backend)
    out = fa(q, k, v, score_mod=smE)
    g = torch.randn_like(out)
    gs = torch.autograd.grad(out, (q, k, v, bias_e), g)
    return (out,) + gs, (q, k, v, g)


try:
    res_e, (q, k, v, g) = run_bwd_e(None)
except Exception as ex:
    print(
        f"RESULT flex_E_scoremod_inf_rows_bwd ERROR eager raised {type(ex).__name__}: {str(ex)[:150]}"
    )
    res_e = None
if res_e is not None:
    q64, k64, v64 = (t.detach().double().requires_grad_() for t in (q, k, v))
    b64 = bias_e.detach().double().requires_grad_()
    mi = torch.arange(Le, device=DEV).view(1, 1, Le, 1)
    s = (q64 @ k64.transpose(-1, -2)) / math.sqrt(De) + b64.view(Be, He, 1, 1) * pos_e.double()
    full = ((mi % 13) == 5).expand(Be, He, Le, 1)
    p = torch.softmax(s.masked_fill(full, 0.0), -1).masked_fill(full, 0.0)
    o64 = p @ v64
    gs64 = torch.autograd.grad(o64, (q64, k64, v64, b64), g.double())
    res_r = (o64,) + gs64
    for backend in ["aot_eager", "inductor"]:
        torch._dynamo.reset()
        tag = f"flex_E_scoremod_inf_rows_bwd[{backend}]"
        try:
            res_c, _ = run_bwd_e(backend)
            if DEV == "cuda":
                torch.cuda.synchronize()
        except Exception as ex:
            print(
                f"RESULT {tag} BUG compiled raised {type(ex).__name__}: {str(ex).replace(chr(10), ' ')[:200]}"
            )
            continue
        names = ["out", "dq", "dk", "dv", "dbias"]
        report(tag, [cmp(nm, c, e, r, 1e-3) for nm, c, e, r in zip(names, res_c, res_e, res_r)])
