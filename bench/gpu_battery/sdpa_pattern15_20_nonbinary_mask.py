# Candidate: fuse_attention.py _sfdp_pattern_15 / _sfdp_pattern_20 (DistilBert style)
# match  masked_fill(scores, attn_mask == 0, -inf)  i.e. "keep every position whose mask
# value is NON-ZERO", but the replacements build the SDPA boolean mask as
# (attn_mask == 1)  i.e. "keep only positions whose mask value is exactly 1".
# For a float/half mask whose non-zero entries are not exactly 1 (e.g. 2.0, 0.5, -1.0:
# still a valid program, the user asked for attn_mask == 0 to be masked) the compiled
# program silently masks extra keys.  _sfdp_params_check only checks the mask dtype.
# Rule: BUG if compiled raises (eager ran), or compiled max-abs-err vs fp64 >
#       max(10*eager_err, tol) (tol 1e-2 fp16, 1e-4 fp32).  OK otherwise.
import os

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)
import torch._inductor.config as icfg
from torch._dynamo.utils import counters

icfg.fx_graph_cache = False


def p15(query, key, value, attn_mask, inv_scale):
    q = query.permute([0, 2, 1, 3])
    k = key.permute([0, 2, 1, 3])
    v = value.permute([0, 2, 1, 3])
    bs = q.size(0)
    k_len = k.size(-2)
    scores = q @ k.transpose(-2, -1)
    scores = scores.div(inv_scale)
    fill_value = torch.full((), -float("inf"), dtype=query.dtype, device=query.device)
    attn_mask = (attn_mask == 0).view((bs, 1, 1, k_len)).expand_as(scores)
    return torch.softmax(scores.masked_fill(attn_mask, fill_value), dim=-1) @ v


def p20(query, key, value, attn_mask, inv_scale):
    q = query.permute([0, 2, 1, 3])
    k = key.permute([0, 2, 1, 3])
    v = value.permute([0, 2, 1, 3])
    bs = q.size(0)
    k_len = k.size(-2)
    q = q.div(inv_scale)
    scores = q @ k.transpose(-2, -1)
    fill_value = torch.full((), -float("inf"), dtype=query.dtype, device=query.device)
    attn_mask = (attn_mask == 0).view((bs, 1, 1, k_len)).expand_as(scores)
    return (
        torch.nn.functional.dropout(
            torch.softmax(scores.masked_fill(attn_mask, fill_value), dim=-1), 0.0
        )
        @ v
    )


def ref64(query, key, value, attn_mask, inv_scale):
    q, k, v = (t.double().permute(0, 2, 1, 3) for t in (query, key, value))
    s = (q @ k.transpose(-2, -1)) / inv_scale
    drop = (attn_mask == 0).view(q.size(0), 1, 1, k.size(-2))
    return torch.softmax(s.masked_fill(drop, float("-inf")), -1) @ v


dt = torch.float16 if DEV == "cuda" else torch.float32
tol = 1e-2 if dt == torch.float16 else 1e-4
B, S, H, D = 2, 64, 4, 64
q = torch.randn(B, S, H, D, device=DEV).to(dt)
k = torch.randn(B, S, H, D, device=DEV).to(dt)
v = torch.randn(B, S, H, D, device=DEV).to(dt)
mask = torch.ones(B, S, device=DEV, dtype=dt)
mask[:, S - 8 :] = 0.0  # padding
mask[:, 3] = 2.0  # non-zero, not 1: eager keeps these keys
mask[:, 10] = 0.5
mask[1, 20] = -1.0
inv_scale = 8.0

ref = ref64(q, k, v, mask, inv_scale)
for name, fn in [("sdpa_p15_nonbinary_mask", p15), ("sdpa_p20_nonbinary_mask", p20)]:
    eager = fn(q, k, v, mask, inv_scale)
    e_err = (eager.double() - ref).abs().max().item()
    for backend in ["aot_eager", "inductor"]:
        torch._dynamo.reset()
        counters.clear()
        tag = f"{name}[{backend}]"
        try:
            out = torch.compile(fn, backend=backend)(q, k, v, mask, inv_scale)
            if DEV == "cuda":
                torch.cuda.synchronize()
            c_err = (out.double() - ref).abs().max().item()
            nf = counters["inductor"]["fuse_attention"]
            bad = not (c_err <= max(10 * e_err, tol))
            print(
                f"RESULT {tag} {'BUG' if bad else 'OK'} eager_err={e_err:.3e} compiled_err={c_err:.3e} fuse_attention={nf}"
            )
        except Exception as ex:
            print(
                f"RESULT {tag} BUG compiled raised {type(ex).__name__}: {str(ex).replace(chr(10), ' ')[:200]}"
            )
