# Candidate: in torch/_inductor/fx_passes/fuse_attention.py the candidate list registers
# _sfdp_pattern_24 with `_sfdp_extra_check` (the FACTORY) instead of `_sfdp_extra_check()`.
# The pattern matcher calls extra_check(match) -> returns the inner closure, which is
# truthy, so _sfdp_params_check (dtype/device/tf32/mask-type/mask-dim checks) never runs
# for pattern 24.  Consequences: a python-scalar or 0-dim additive "mask" (valid eager
# code; softmax is shift invariant) makes the replacement crash at compile time, a
# 5-D broadcasting mask is passed to SDPA, and on CUDA fp32 the pattern fires although
# fp32 matmul precision is "ieee" (the check that would refuse it is skipped).
# Rule: BUG if compiled raises where eager ran, or compiled err vs fp64 >
#       max(10*eager_err, tol) with tol=1e-2 (fp16) / 1e-4 (fp32).  OK otherwise.
import os

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)
import torch._inductor.config as icfg
from torch._dynamo.utils import counters

icfg.fx_graph_cache = False  # so the fuse_attention counter is meaningful

B, H, S, D = 2, 4, 64, 32


def attn(query, key, value, attention_mask):
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


def ref64(q, k, v, m):
    m = (
        torch.as_tensor(m, dtype=torch.float64, device=q.device)
        if not isinstance(m, torch.Tensor)
        else m.double()
    )
    w = q.double() @ k.double().transpose(-1, -2)
    w = w + m  # broadcast like eager
    w = w.reshape(B, H, S, -1)
    return torch.softmax(w, -1) @ v.double()


def run(name, dt, mask_fn):
    q = torch.randn(B, H, S, D, device=DEV).to(dt)
    k = torch.randn(B, H, S, D, device=DEV).to(dt)
    v = torch.randn(B, H, S, D, device=DEV).to(dt)
    m = mask_fn(dt)
    try:
        eager = attn(q, k, v, m)
    except Exception as ex:
        print(f"RESULT {name} ERROR eager raised {type(ex).__name__}: {str(ex)[:150]}")
        return
    ref = ref64(q, k, v, m)
    e_err = (eager.double() - ref).abs().max().item()
    tol = 1e-2 if dt != torch.float32 else 1e-4
    for backend in ["aot_eager", "inductor"]:
        torch._dynamo.reset()
        counters.clear()
        tag = f"{name}[{backend}]"
        try:
            out = torch.compile(attn, backend=backend)(q, k, v, m)
            if DEV == "cuda":
                torch.cuda.synchronize()
            c_err = (out.double() - ref).abs().max().item()
            nf = counters["inductor"]["fuse_attention"]
            bad = (
                (not (c_err <= max(10 * e_err, tol)))
                or out.shape != eager.shape
                or out.dtype != eager.dtype
            )
            print(
                f"RESULT {tag} {'BUG' if bad else 'OK'} eager_err={e_err:.3e} compiled_err={c_err:.3e} "
                f"shape={tuple(out.shape)} dtype={out.dtype} fuse_attention={nf}"
            )
        except Exception as ex:
            msg = str(ex).replace("\n", " ")[:200]
            print(f"RESULT {tag} BUG compiled raised {type(ex).__name__}: {msg}")


dt16 = torch.float16 if DEV == "cuda" else torch.float32
run("sdpa_p24_python_scalar_mask", dt16, lambda dt: 2.0)
run("sdpa_p24_zero_dim_tensor_mask", dt16, lambda dt: torch.tensor(2.0, device=DEV, dtype=dt))
if DEV == "cuda":
    # 0-dim CPU tensor added to CUDA logits is valid in eager (CPU scalars broadcast)
    run("sdpa_p24_zero_dim_cpu_tensor_mask", dt16, lambda dt: torch.tensor(2.0, dtype=dt))
run(
    "sdpa_p24_5d_mask_leading_1",
    dt16,
    lambda dt: (torch.randn(1, B, 1, S, S, device=DEV) * 2).to(dt),
)
# fp32 with default ('ieee'/highest) fp32 matmul precision: _sfdp_params_check would refuse on CUDA.
run(
    "sdpa_p24_fp32_no_tf32",
    torch.float32,
    lambda dt: (torch.randn(B, 1, S, S, device=DEV) * 2).to(dt),
)
