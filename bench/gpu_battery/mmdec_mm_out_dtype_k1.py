# Candidate: Inductor's GPU-only mm decomposition for K==1 (torch/_inductor/decomposition.py
# `mm`, the `self.size(-1) == 1` branch, wrapped in @pw_cast_for_opmath) is also registered
# for aten.mm.dtype (packet registration) and ignores out_dtype: torch.mm(bf16, bf16,
# out_dtype=torch.float32) with K == 1 returns bfloat16 (rounded) instead of float32.
# Also bmm.dtype with K == 1 (the outer-product branch of `bmm`).
# out_dtype overloads are CUDA-only in eager, so DEV=cpu reports ERROR for eager.
# BUG rule: compiled dtype != eager dtype, or compiled max err vs fp64 > 100x eager err and > 1e-3.
import os

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)


def check(name, fn, args, backend, opts=None):
    try:
        ref = fn(*args)
    except Exception as e:
        print(f"RESULT {name} ERROR eager raised {type(e).__name__}: {str(e)[:200]}")
        return
    torch._dynamo.reset()
    try:
        if opts:
            out = torch.compile(fn, backend=backend, fullgraph=True, options=opts)(*args)
        else:
            out = torch.compile(fn, backend=backend, fullgraph=True)(*args)
    except Exception as e:
        print(f"RESULT {name} BUG compiled raised {type(e).__name__}: {str(e)[:200]}")
        return
    # fp64 reference: the exact product of the bf16 inputs
    a64 = [x.double() for x in args]
    if len(a64[0].shape) == 2:
        exact = a64[0] @ a64[1]
    else:
        exact = torch.bmm(a64[0], a64[1])
    e_err = (ref.double() - exact).abs().max().item()
    c_err = (out.double() - exact).abs().max().item()
    bug = (out.dtype != ref.dtype) or (c_err > 100 * e_err and c_err > 1e-3)
    print(
        f"RESULT {name} {'BUG' if bug else 'OK'} eager_dtype={ref.dtype} compiled_dtype={out.dtype} "
        f"eager_err={e_err:.3e} compiled_err={c_err:.3e} shape={tuple(out.shape)}"
    )


def f_mm(a, b):
    return torch.mm(a, b, out_dtype=torch.float32)


def f_bmm(a, b):
    return torch.bmm(a, b, out_dtype=torch.float32)


for dt in (torch.bfloat16, torch.float16):
    a = (torch.randn(64, 1, device=DEV) * 3).to(dt)
    b = (torch.randn(1, 48, device=DEV) * 3).to(dt)
    for backend in ("aot_eager", "inductor"):
        check(f"mm_out_dtype_k1_{str(dt)[6:]}_{backend}", f_mm, (a, b), backend)
    a3 = (torch.randn(4, 32, 1, device=DEV) * 3).to(dt)
    b3 = (torch.randn(4, 1, 24, device=DEV) * 3).to(dt)
    for backend in ("aot_eager", "inductor"):
        check(f"bmm_out_dtype_k1_{str(dt)[6:]}_{backend}", f_bmm, (a3, b3), backend)
# control: K > 1 should go through the extern mm with out_dtype
a = torch.randn(64, 16, device=DEV).to(torch.bfloat16)
b = torch.randn(16, 48, device=DEV).to(torch.bfloat16)
check("mm_out_dtype_k16_control_inductor", f_mm, (a, b), "inductor")

# With coordinate_descent_tuning the same decompositions also take M == 1 / N == 1 (any K)
# (decomposition.py mm: `(self.unsqueeze(2) * input2.unsqueeze(0)).sum(dim=1)`;
#  bmm: `(self.unsqueeze(-1) * batch2.unsqueeze(1)).sum(dim=2)`), again dropping out_dtype.
a = torch.randn(1, 64, device=DEV).to(torch.bfloat16)
b = torch.randn(64, 48, device=DEV).to(torch.bfloat16)
check(
    "mm_out_dtype_m1_coordesc_inductor",
    f_mm,
    (a, b),
    "inductor",
    {"coordinate_descent_tuning": True},
)
a3 = torch.randn(4, 1, 64, device=DEV).to(torch.bfloat16)
b3 = torch.randn(4, 64, 40, device=DEV).to(torch.bfloat16)
check(
    "bmm_out_dtype_m1_coordesc_inductor",
    f_bmm,
    (a3, b3),
    "inductor",
    {"coordinate_descent_tuning": True},
)
