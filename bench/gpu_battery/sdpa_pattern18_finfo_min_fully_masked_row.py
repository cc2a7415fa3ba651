# Candidate: fuse_attention.py _sfdp_pattern_18 (hf GPT2) matches
#     where(causal_mask, scores / inv_scale, finfo(dtype).min).softmax(-1) @ v
# and replaces it with SDPA(attn_mask=causal_mask) i.e. masked scores become -inf instead
# of the FINITE finfo.min.  For a query row whose mask is all False (left padding: HF uses
# finfo.min precisely so such rows stay finite), eager gives the uniform average of v,
# while the SDPA replacement gives 0 (safe softmax) or NaN (fused kernels).
# Same for _sfdp_pattern_19 (where(causal, w, finfo.min) + attn_mask), whose replacement
# turns the False causal entries into -inf.
# Rule: BUG if compiled raises (eager ran), or has NaN where the fp64 reference is finite,
#       or max|compiled - ref64| > max(10*max|eager - ref64|, tol) (tol 1e-2 fp16, 1e-4 fp32).
import os

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)
import torch._inductor.config as icfg
from torch._dynamo.utils import counters

icfg.fx_graph_cache = False


def gpt2_attn(query, key, value, causal_mask, inv_scale):
    # structure of _sfdp_pattern_18 (inference; dropout p=0)
    query = query.permute([0, 2, 1, 3])
    key = key.permute([0, 2, 1, 3])
    value = value.permute([0, 2, 1, 3])
    attn_weights = torch.matmul(query, key.permute(0, 1, 3, 2))
    inv_scale = torch.full([], inv_scale, dtype=attn_weights.dtype, device=attn_weights.device)
    attn_weights = attn_weights.div(inv_scale)
    causal_mask_value = torch.full(
        (), torch.finfo(query.dtype).min, dtype=query.dtype, device=query.device
    )
    attn_weights = torch.where(causal_mask, attn_weights, causal_mask_value)
    out = torch.nn.functional.dropout(attn_weights.softmax(dim=-1), 0.0).matmul(value)
    return out, key, value


def ref64(query, key, value, causal_mask, inv_scale):
    q, k, v = (t.double().permute(0, 2, 1, 3) for t in (query, key, value))
    w = (q @ k.transpose(-1, -2)) / inv_scale
    w = torch.where(
        causal_mask,
        w,
        torch.tensor(torch.finfo(query.dtype).min, dtype=torch.float64, device=w.device),
    )
    return torch.softmax(w, -1) @ v


dt = torch.float16 if DEV == "cuda" else torch.float32
tol = 1e-2 if dt == torch.float16 else 1e-4
B, S, H, D = 2, 64, 4, 64
q = torch.randn(B, S, H, D, device=DEV).to(dt)
k = torch.randn(B, S, H, D, device=DEV).to(dt)
v = torch.randn(B, S, H, D, device=DEV).to(dt)
# causal + left padding of 5 tokens in batch 1: padded query rows are fully masked
causal = torch.ones(S, S, device=DEV, dtype=torch.bool).tril()
keep = causal.view(1, 1, S, S).repeat(B, 1, 1, 1)
keep[1, :, :, :5] = False
inv_scale = 8.0

ref = ref64(q, k, v, keep, inv_scale)
eager = gpt2_attn(q, k, v, keep, inv_scale)[0]
e_err = (eager.double() - ref).abs().max().item()
for backend in ["aot_eager", "inductor"]:
    torch._dynamo.reset()
    counters.clear()
    tag = f"sdpa_p18_finfo_min_fully_masked_row[{backend}]"
    try:
        out = torch.compile(gpt2_attn, backend=backend)(q, k, v, keep, inv_scale)[0]
        if DEV == "cuda":
            torch.cuda.synchronize()
        nan_bad = bool((torch.isnan(out) & torch.isfinite(ref)).any())
        c_err = (out.double() - ref).nan_to_num(nan=float("inf")).abs().max().item()
        row = out[1, :, :5].double().abs().max().item()
        rest = (out.double() - ref)[:, :, 5:].abs().max().item()
        bad = nan_bad or not (c_err <= max(10 * e_err, tol))
        print(
            f"RESULT {tag} {'BUG' if bad else 'OK'} eager_err={e_err:.3e} compiled_err={c_err:.3e} "
            f"nan={nan_bad} max|out[padded rows]|={row:.3e} (eager={eager[1, :, :5].double().abs().max().item():.3e}) err_other_rows={rest:.3e} "
            f"fuse_attention={counters['inductor']['fuse_attention']}"
        )
    except Exception as ex:
        print(
            f"RESULT {tag} BUG compiled raised {type(ex).__name__}: {str(ex).replace(chr(10), ' ')[:200]}"
        )


# ---------------- pattern 19 (GPT2 token classification): causal bool + additive mask
def gpt2_attn19(query, key, value, causal_mask, attn_mask, inv_scale):
    attn_weights = torch.matmul(query, key.permute(0, 1, 3, 2))
    inv_scale = torch.full([], inv_scale, dtype=attn_weights.dtype, device=attn_weights.device)
    attn_weights = attn_weights.div(inv_scale)
    causal_mask_value = torch.full(
        (), torch.finfo(query.dtype).min, dtype=query.dtype, device=query.device
    )
    attn_weights = torch.where(causal_mask, attn_weights, causal_mask_value)
    attn_weights = attn_weights + attn_mask
    attn_weights = attn_weights.softmax(dim=-1).type(value.dtype)
    return torch.nn.functional.dropout(attn_weights, 0.0).matmul(value)


def ref19(query, key, value, causal_mask, attn_mask, inv_scale):
    q, k, v = query.double(), key.double(), value.double()
    w = (q @ k.transpose(-1, -2)) / inv_scale
    w = torch.where(
        causal_mask,
        w,
        torch.tensor(torch.finfo(query.dtype).min, dtype=torch.float64, device=w.device),
    )
    w = w + attn_mask.double()
    return torch.softmax(w, -1) @ v


q4 = torch.randn(B, H, S, D, device=DEV).to(dt)
k4 = torch.randn(B, H, S, D, device=DEV).to(dt)
v4 = torch.randn(B, H, S, D, device=DEV).to(dt)
causal19 = torch.ones(S, S, device=DEV, dtype=torch.bool).tril().view(1, 1, S, S).clone()
causal19[..., 10:14, :] = False  # four query rows with no visible key
amask = torch.zeros(B, 1, 1, S, device=DEV, dtype=dt)
amask[1, ..., -3:] = -1000.0  # ordinary (finite) padding bias
ref = ref19(q4, k4, v4, causal19, amask, inv_scale)
eager = gpt2_attn19(q4, k4, v4, causal19, amask, inv_scale)
e_err = (eager.double() - ref).abs().max().item()
for backend in ["aot_eager", "inductor"]:
    torch._dynamo.reset()
    counters.clear()
    tag = f"sdpa_p19_finfo_min_fully_masked_row[{backend}]"
    try:
        out = torch.compile(gpt2_attn19, backend=backend)(q4, k4, v4, causal19, amask, inv_scale)
        if DEV == "cuda":
            torch.cuda.synchronize()
        nan_bad = bool((torch.isnan(out) & torch.isfinite(ref)).any())
        c_err = (out.double() - ref).nan_to_num(nan=float("inf")).abs().max().item()
        row = out[:, :, 10:14].double().abs().max().item()
        bad = nan_bad or not (c_err <= max(10 * e_err, tol))
        print(
            f"RESULT {tag} {'BUG' if bad else 'OK'} eager_err={e_err:.3e} compiled_err={c_err:.3e} "
            f"nan={nan_bad} max|out[masked rows]|={row:.3e} (eager={eager[:, :, 10:14].double().abs().max().item():.3e}) "
            f"fuse_attention={counters['inductor']['fuse_attention']}"
        )
    except Exception as ex:
        print(
            f"RESULT {tag} BUG compiled raised {type(ex).__name__}: {str(ex).replace(chr(10), ' ')[:200]}"
        )
