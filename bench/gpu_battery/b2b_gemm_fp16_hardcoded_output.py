# Candidate: the B2B-GEMM Triton templates (torch/_inductor/fx_passes/b2b_gemm.py,
# b2b_gemm_left_template / b2b_gemm_right_template) end with `acc = acc.to(tl.float16)`
# regardless of the input/output dtype, and neither is_b2b_gemm_good_on() nor b2b_gemm_handler()
# checks the dtype. With config.b2b_gemm_pass=True (GPU-only pass: requires is_cuda/is_xpu
# inputs), float32 / bfloat16 (A @ B) @ C is computed through an fp16 cast: values above
# 65504 become inf, and fp32 results lose precision (fp16 rounding; also tl.dot on fp32
# operands uses TF32 by default while eager fp32 mm does not).
# The template competes in autotuning with an "unoptimized" choice; the script reports
# whether the b2b template was actually used (template_used=...). If it was not used, the
# result is reported OK (no claim).
# BUG rule: compiled has inf/nan where eager is finite, or the compiled relative error vs fp64
# is > 100x eager's and > 1e-3.
import os

import torch
import torch._inductor.config as ic
from torch._inductor.utils import run_and_get_code

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)


def f_plain(a, b, c):
    return torch.mm(torch.mm(a, b), c)


def f_gelu(a, b, c):
    return torch.mm(torch.nn.functional.gelu(torch.mm(a, b)), c)


def f_up(a, b, c):
    # fp16 inner mm, upcast (pointwise convert_element_type), fp32 outer mm -> fp32 result
    return torch.mm(torch.mm(a, b).float(), c)


def f_down(a, b, c):
    # fp32 inner mm, downcast to fp16, fp16 outer mm -> fp16 result
    return torch.mm(torch.mm(a, b).half(), c)


def exact_chain(a, b, c):
    return torch.mm(torch.mm(a.double(), b.double()), c.double())


def run(name, fn, args, ref_fn=None):
    try:
        ref = fn(*args)
    except Exception as e:
        print(f"RESULT {name} ERROR eager raised {type(e).__name__}: {str(e)[:200]}")
        return
    exact = ref_fn(*args) if ref_fn is not None else fn(*[x.double() for x in args])
    scale = exact.abs().max().item()
    torch._dynamo.reset()
    try:
        with ic.patch({"b2b_gemm_pass": True}):
            out, codes = run_and_get_code(torch.compile(fn, backend="inductor"), *args)
    except Exception as e:
        print(f"RESULT {name} BUG compiled raised {type(e).__name__}: {str(e)[:200]}")
        return
    code = "\n".join(codes)
    used = ("B2B_GEMM_LEFT_TRITON_ENTRANCE" in code) or ("B2B_GEMM_RIGHT_TRITON_ENTRANCE" in code)
    fin = torch.isfinite(ref)
    bad = (~torch.isfinite(out) & fin).sum().item()
    e_rel = (ref.double() - exact).abs()[fin].max().item() / scale
    c_rel = (out.double() - exact).abs()[fin].nan_to_num(float("inf")).max().item() / scale
    bug = bad > 0 or (c_rel > 100 * e_rel and c_rel > 1e-3) or out.dtype != ref.dtype
    print(
        f"RESULT {name} {'BUG' if bug else 'OK'} template_used={used} eager_dtype={ref.dtype} compiled_dtype={out.dtype} "
        f"max|exact|={scale:.3e} nonfinite_where_eager_finite={bad} "
        f"eager_rel_err={e_rel:.3e} compiled_rel_err={c_rel:.3e}"
    )


M, N = 128, 16
# fp32, ordinary magnitude: precision
a = torch.randn(M, N, device=DEV)
b = torch.randn(N, M, device=DEV)
c = torch.randn(M, N, device=DEV)
run(f"b2b_fp32_plain_{M}x{N}", f_plain, (a, b, c))
run(f"b2b_fp32_gelu_{M}x{N}", f_gelu, (a, b, c))
# fp32 / bf16, large magnitude: results ~5e6 > fp16 max (65504)
for dt in (torch.float32, torch.bfloat16):
    a = (torch.randn(M, N, device=DEV) * 30).to(dt)
    b = (torch.randn(N, M, device=DEV) * 30).to(dt)
    c = (torch.randn(M, N, device=DEV) * 30).to(dt)
    run(f"b2b_{str(dt)[6:]}_large_plain_{M}x{N}", f_plain, (a, b, c))
# second shape (load ratio 1.23 > 1 for the left-assoc template)
a = torch.randn(256, 32, device=DEV) * 30
b = torch.randn(32, 256, device=DEV) * 30
c = torch.randn(256, 32, device=DEV) * 30
run("b2b_fp32_large_plain_256x32", f_plain, (a, b, c))
# Mixed dtypes through a pointwise convert between the two mms: tuned_b2b_gemm builds the
# output layout from A's dtype (FixedLayout(A.get_dtype(), ...)), for every choice including
# the unoptimized one, so the result dtype follows A, not the outer mm.
a = torch.randn(128, 16, device=DEV, dtype=torch.float16)
b = torch.randn(16, 128, device=DEV, dtype=torch.float16)
c = torch.randn(128, 16, device=DEV, dtype=torch.float32)
run("b2b_mixed_fp16_inner_fp32_outer", f_up, (a, b, c), exact_chain)
a = torch.randn(128, 16, device=DEV, dtype=torch.float32)
b = torch.randn(16, 128, device=DEV, dtype=torch.float32)
c = torch.randn(128, 16, device=DEV, dtype=torch.float16)
run("b2b_mixed_fp32_inner_fp16_outer", f_down, (a, b, c), exact_chain)
# control: fp16 (the dtype the template was written for)
a = torch.randn(128, 16, device=DEV, dtype=torch.float16)
b = torch.randn(16, 128, device=DEV, dtype=torch.float16)
c = torch.randn(128, 16, device=DEV, dtype=torch.float16)
run("b2b_fp16_control_128x16", f_plain, (a, b, c))
