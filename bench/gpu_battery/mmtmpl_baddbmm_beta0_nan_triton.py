# Candidate: the Triton mm/bmm template epilogue for addmm/baddbmm
# (torch/_inductor/kernel/mm_common.py addmm_epilogue: `if beta != 1: bias = bias * beta`,
# used via template_heuristics/triton_addmm.py for both "addmm" and "baddbmm") multiplies the
# input by beta even when beta == 0, so nan/inf in `input` leak into the result. torch.baddbmm /
# torch.addmm document that with beta == 0 the input is ignored and nan/inf are not propagated.
# Only reached on GPU with max-autotune and the Triton GEMM backend selected
# (max_autotune_gemm_backends="TRITON" removes the ATen choice so the template is picked).
# addmm's beta=0 on CUDA is likely covered by #178040 / PR #183511; baddbmm is the new part.
# BUG rule: compiled has non-finite values where eager is finite, or err > 100x eager and > 1e-2.
import os

import torch
import torch._inductor.config as ic
from torch._inductor.utils import run_and_get_code

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)


def run(name, fn, args, backend, opts=None):
    try:
        ref = fn(*args)
    except Exception as e:
        print(f"RESULT {name} ERROR eager raised {type(e).__name__}: {str(e)[:200]}")
        return
    exact = fn(*[a.double() for a in args])
    torch._dynamo.reset()
    try:
        if opts is None:
            cf = torch.compile(fn, backend=backend)
        else:
            cf = torch.compile(fn, backend=backend, options=opts)
        out, codes = run_and_get_code(cf, *args)
    except Exception as e:
        msg = str(e).replace("\n", " ")
        # autotuning infrastructure failures are not the claim: report them as ERROR
        kind = (
            "ERROR"
            if (
                "NoValidChoices" in msg
                or "NoValidChoicesError" in type(e).__name__
                or "No choices" in msg
            )
            else "BUG"
        )
        print(f"RESULT {name} {kind} compiled raised {type(e).__name__}: {msg[:200]}")
        return
    used = any("triton_tem" in c for c in codes)
    fin = torch.isfinite(ref)
    e_err = (ref.double() - exact).abs()[fin].max().item()
    bad = (~torch.isfinite(out) & fin).sum().item()
    c_err = (out.double() - exact).abs()[fin].nan_to_num(float("inf")).max().item()
    bug = bad > 0 or (c_err > 100 * e_err and c_err > 1e-2)
    print(
        f"RESULT {name} {'BUG' if bug else 'OK'} triton_template_used={used} eager_nonfinite={(~fin).sum().item()} "
        f"compiled_nonfinite_where_eager_finite={bad} eager_err={e_err:.3e} compiled_err={c_err:.3e}"
    )


def f_baddbmm(inp, a, b):
    return torch.baddbmm(inp, a, b, beta=0)


def f_baddbmm_f(inp, a, b):
    return torch.baddbmm(inp, a, b, beta=0.0, alpha=0.5)


def f_addmm(inp, a, b):
    return torch.addmm(inp, a, b, beta=0)


B, M, K, N = 4, 64, 32, 64
dt = torch.float16
a3 = torch.randn(B, M, K, device=DEV, dtype=dt)
b3 = torch.randn(B, K, N, device=DEV, dtype=dt)
inp3 = torch.randn(B, M, N, device=DEV, dtype=dt)
inp3[0, 0, 0] = float("nan")
inp3[1, 2, 3] = float("inf")
a2 = torch.randn(M, K, device=DEV, dtype=dt)
b2 = torch.randn(K, N, device=DEV, dtype=dt)
inp2 = torch.randn(M, N, device=DEV, dtype=dt)
inp2[5, 7] = float("nan")

opts = {
    "max_autotune": True,
    "max_autotune_gemm_backends": "TRITON",
}
# keep the search tiny (exists in 2.11 and 2.13 as test_configs.max_mm_configs)
try:
    ic.test_configs.max_mm_configs = 2
except Exception:
    pass

if DEV == "cpu":
    # no Triton template on CPU; the check below only validates the script's logic
    opts = None
run("baddbmm_beta0int_nan_aot_eager", f_baddbmm, (inp3, a3, b3), "aot_eager")
run("baddbmm_beta0int_nan_triton_template", f_baddbmm, (inp3, a3, b3), "inductor", opts)
run("baddbmm_beta0float_alpha05_nan_triton_template", f_baddbmm_f, (inp3, a3, b3), "inductor", opts)
run("addmm_beta0int_nan_triton_template", f_addmm, (inp2, a2, b2), "inductor", opts)
# control: default (no max-autotune) inductor
run("baddbmm_beta0int_nan_default_inductor", f_baddbmm, (inp3, a3, b3), "inductor")
