# Candidate: Inductor's SDPA pattern _sfdp_pattern_24 (hand-written bmm/softmax/bmm
# attention with an additive mask, MBart style) is replaced by aten SDPA. When the key is
# a slice of a larger tensor at storage offset 3 (fp16 -> 6 bytes, not 16B aligned), the
# SDPA fallback receives a misaligned data pointer: sdpa_constraint
# (torch/_inductor/lowering.py) only checks strides via ir.is_aligned_realized_tensor and
# never the storage offset (ReinterpretView offset) nor V.graph.unaligned_buffers (inputs).
# Eager never calls SDPA for this program, so any raise/crash in compiled is a compiler bug.
# A previous campaign saw "CUDA error: misaligned address" from this on torch 2.11.
# Rule: BUG if compiled raises (eager ran) or compiled max-abs-err vs fp64 >
#       max(10*eager_err, 1e-2).  OK otherwise.
# The direct F.sdpa variant at the end is only BUG if eager F.sdpa on the same view ran.
import os
import sys

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)
import torch._inductor.config as icfg
from torch._dynamo.utils import counters

icfg.fx_graph_cache = False  # so the fuse_attention counter is meaningful

B, H, S, D = 2, 4, 128, 64
dt = torch.float16 if DEV == "cuda" else torch.float32
N = B * H * S * D


def attn(query, key, value, attention_mask):
    # exactly the structure of _sfdp_pattern_24 (MBart)
    bs, n_head, seq_len, head_size = query.size(0), query.size(1), query.size(2), query.size(3)
    q = query.view(bs * n_head, -1, head_size)
    k = key.reshape(bs * n_head, -1, head_size)
    v = value.reshape(bs * n_head, -1, head_size)
    w = torch.bmm(q, k.transpose(1, 2))
    w = w.view(bs, n_head, seq_len, -1) + attention_mask
    w = w.view(bs * n_head, seq_len, -1)
    w = torch.nn.functional.softmax(w, dim=-1)
    if query.dtype == torch.half:
        w = w.to(torch.half)
    o = torch.bmm(w, v)
    return o.view(bs, n_head, seq_len, head_size)


def attn_slice_inside(query, big_k, value, attention_mask):
    key = big_k[3 : 3 + N].view(B, H, S, D)
    return attn(query, key, value, attention_mask)


def direct_sdpa_sliced_inside(query, big_k, value, attention_mask):
    key = big_k[3 : 3 + N].view(B, H, S, D)
    return torch.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=attention_mask, scale=1.0
    )


def ref64(query, key, value, mask):
    q, k, v, m = query.double(), key.double(), value.double(), mask.double()
    w = q @ k.transpose(-1, -2) + m
    return torch.softmax(w, -1) @ v


def sync():
    if DEV == "cuda":
        torch.cuda.synchronize()


q = (torch.randn(B, H, S, D, device=DEV) * 0.5).to(dt)
big_k = (torch.randn(N + 8, device=DEV) * 0.5).to(dt)
k_off = big_k[3 : 3 + N].view(B, H, S, D)  # storage_offset 3
v = (torch.randn(B, H, S, D, device=DEV) * 0.5).to(dt)
mask = torch.zeros(B, 1, S, S, device=DEV, dtype=dt)
mask[
    ..., S // 2 :
] = -1e4  # additive fp16 mask (same dtype as q: avoids the known fp32-mask cast issue)
assert k_off.storage_offset() == 3

ref = ref64(q, k_off, v, mask)
eager = attn(q, k_off, v, mask)
sync()
e_err = (eager.double() - ref).abs().max().item()


def run(name, fn, args, e_err):
    for backend in ["aot_eager", "inductor"]:
        torch._dynamo.reset()
        counters.clear()
        tag = f"{name}[{backend}]"
        try:
            out = torch.compile(fn, backend=backend)(*args)
            sync()
            c_err = (out.double() - ref).abs().max().item()
            nfuse = counters["inductor"]["fuse_attention"]
            bug = not (c_err <= max(10 * e_err, 1e-2))
            print(
                f"RESULT {tag} {'BUG' if bug else 'OK'} eager_err={e_err:.3e} compiled_err={c_err:.3e} fuse_attention={nfuse}",
                flush=True,
            )
        except Exception as ex:
            msg = str(ex).replace("\n", " ")[:200]
            print(f"RESULT {tag} BUG compiled raised {type(ex).__name__}: {msg}", flush=True)
            if "CUDA error" in str(ex) or "misaligned" in str(ex):
                print("INFO CUDA context poisoned by async error; stopping", flush=True)
                sys.exit(0)


run("sdpa_p24_key_offset3_sliced_inside", attn_slice_inside, (q, big_k, v, mask), e_err)
run("sdpa_p24_key_offset3_input", attn, (q, k_off, v, mask), e_err)

# Last (an eager CUDA error here would poison the context): direct F.sdpa on the same view.
try:
    e3 = direct_sdpa_sliced_inside(q, big_k, v, mask)
    sync()
    e3_err = (e3.double() - ref).abs().max().item()
    print(f"INFO eager_F.sdpa_with_offset3_key ok err={e3_err:.3e}", flush=True)
except Exception as ex:
    e3 = None
    print(
        f"RESULT direct_sdpa_key_offset3_sliced_inside ERROR eager F.sdpa raised {type(ex).__name__}: {str(ex)[:150]}",
        flush=True,
    )
if e3 is not None:
    run(
        "direct_sdpa_key_offset3_sliced_inside",
        direct_sdpa_sliced_inside,
        (q, big_k, v, mask),
        e3_err,
    )
