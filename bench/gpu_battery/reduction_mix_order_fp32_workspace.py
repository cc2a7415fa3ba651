# Candidate: Inductor "mix order reduction" (config.triton.mix_order_reduction,
# default ON for non-fbcode CUDA builds) fuses a row reduction x.sum(1) with a
# column reduction x.sum(0) of the same input.  The column partial sums are
# accumulated in registers declared `tl.float32` and stored to a workspace
# allocated with dtype=torch.float, whatever the reduction's dtype is
# (codegen/triton.py codegen_body: `tl.full([R0_BLOCK], default, tl.float32)`,
# codegen/simd.py _generate_kernel_code_for_mix_order_reduction:
# `kernel.args.workspace(..., dtype=torch.float)`).  So an int64 or float64
# column sum is computed in float32:
#   - int64: silently wrong (sums beyond 2**24 lose exactness),
#   - float64: either a Triton "loop-carried variable type" compile error
#     (fp32 accumulator re-assigned to fp64) or fp32-level error.
#
# Rule: int64 -> BUG if compiled != eager (exact).  float64 -> BUG if the
# compiled max relative error vs eager fp64 (the reference, inputs are fp64)
# exceeds 1e-9 (fp64 sums of 32768 terms are ~1e-13 accurate); BUG if compile
# raises.  float32 variant is a control (tolerance 1e-4 relative).
import os

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)

NROW, NCOL = 32768, 256  # nrow*ncol >= 5*2**20, nrow >= 2*ncol, nrow >= 4096


def f(x):
    return x.sum(dim=1), x.sum(dim=0)


def mix_count():
    try:
        from torch._inductor import metrics

        return getattr(metrics, "codegen_mix_order_reduction", "n/a")
    except Exception:
        return "n/a"


def run(name, x, exact, rtol):
    ref = f(x)
    for backend in ("aot_eager", "inductor"):
        torch._dynamo.reset()
        try:
            from torch._inductor import metrics

            metrics.reset()
        except Exception:
            pass
        try:
            out = torch.compile(f, backend=backend, fullgraph=True)(x)
            if DEV == "cuda":
                torch.cuda.synchronize()
        except Exception as e:
            msg = (type(e).__name__ + ": " + str(e)).replace("\n", " ")[:200]
            print(f"RESULT {name}_{backend} BUG compiled raised, eager did not: {msg}")
            continue
        details = []
        bad = False
        for i, (r, o) in enumerate(zip(ref, out)):
            if o.dtype != r.dtype or o.shape != r.shape:
                bad = True
                details.append(
                    f"out{i} dtype/shape {o.dtype}{tuple(o.shape)} vs {r.dtype}{tuple(r.shape)}"
                )
                continue
            if exact:
                nbad = int((o != r).sum())
                maxdiff = int((o - r).abs().max())
                details.append(f"out{i} mismatches={nbad} maxabsdiff={maxdiff}")
                bad |= nbad > 0
            else:
                rel = float(
                    ((o.double() - r.double()).abs() / r.double().abs().clamp_min(1e-30)).max()
                )
                details.append(f"out{i} max_rel_err_vs_eager={rel:.3e}")
                bad |= rel > rtol
        tag = "BUG" if bad else "OK"
        print(
            f"RESULT {name}_{backend} {tag} mix_order_kernels={mix_count()} " + "; ".join(details)
        )


# int64: column sums ~ 32768 * 2**30 ~ 3.5e13 >> 2**24
x_i64 = torch.randint(0, 2**31, (NROW, NCOL), device=DEV, dtype=torch.int64)
run("mix_order_sum_int64", x_i64, exact=True, rtol=0)

# float64: offset so fp32 rounding is clearly visible
x_f64 = torch.randn(NROW, NCOL, device=DEV, dtype=torch.float64) + 1000.0
run("mix_order_sum_float64", x_f64, exact=False, rtol=1e-9)


# float32 input, user explicitly asks for float64 accumulation of the column sum
def f_acc64(x):
    return x.sum(dim=1), x.sum(dim=0, dtype=torch.float64)


x_f32b = torch.randn(NROW, NCOL, device=DEV, dtype=torch.float32) + 100.0
ref_acc = f_acc64(x_f32b)
for backend in ("aot_eager", "inductor"):
    torch._dynamo.reset()
    name = f"mix_order_sum_dtype_float64_arg_{backend}"
    try:
        from torch._inductor import metrics

        metrics.reset()
    except Exception:
        pass
    try:
        out_acc = torch.compile(f_acc64, backend=backend, fullgraph=True)(x_f32b)
        if DEV == "cuda":
            torch.cuda.synchronize()
    except Exception as e:
        msg = (type(e).__name__ + ": " + str(e)).replace("\n", " ")[:200]
        print(f"RESULT {name} BUG compiled raised, eager did not: {msg}")
        continue
    r, o = ref_acc[1], out_acc[1]
    rel = float(((o - r).abs() / r.abs()).max()) if o.dtype == r.dtype else float("inf")
    bad = rel > 1e-9  # eager sums fp32 values exactly-ish in fp64 (~1e-14)
    print(
        f"RESULT {name} {'BUG' if bad else 'OK'} mix_order_kernels={mix_count()} "
        f"col_sum dtype={o.dtype} max_rel_err_vs_eager_fp64={rel:.3e} "
        f"row_sum max_abs_diff={float((out_acc[0] - ref_acc[0]).abs().max()):.3e}"
    )

# control: float32 must be fine
x_f32 = torch.randn(NROW, NCOL, device=DEV, dtype=torch.float32)
run("mix_order_sum_float32_control", x_f32.abs(), exact=False, rtol=1e-4)

# realistic variant: float64 LayerNorm training step (backward has row
# reductions for grad_input and column reductions for grad_weight/grad_bias,
# which mix-order reduction fuses).
import torch.nn.functional as F


def ln(x, w, b):
    return F.layer_norm(x, (NCOL,), w, b, eps=1e-5)


def ln_grads(fn, x, w, b, g):
    xs, ws, bs = (t.detach().clone().requires_grad_(True) for t in (x, w, b))
    out = fn(xs, ws, bs)
    out.backward(g)
    return out.detach(), xs.grad, ws.grad, bs.grad


xl = torch.randn(NROW, NCOL, device=DEV, dtype=torch.float64) * 3 + 1
wl = torch.randn(NCOL, device=DEV, dtype=torch.float64)
bl = torch.randn(NCOL, device=DEV, dtype=torch.float64)
gl = torch.randn(NROW, NCOL, device=DEV, dtype=torch.float64)
ref_l = ln_grads(ln, xl, wl, bl, gl)
for backend in ("aot_eager", "inductor"):
    torch._dynamo.reset()
    name = f"mix_order_layer_norm_bwd_float64_{backend}"
    try:
        from torch._inductor import metrics

        metrics.reset()
    except Exception:
        pass
    try:
        out_l = ln_grads(torch.compile(ln, backend=backend), xl, wl, bl, gl)
        if DEV == "cuda":
            torch.cuda.synchronize()
    except Exception as e:
        msg = (type(e).__name__ + ": " + str(e)).replace("\n", " ")[:200]
        print(f"RESULT {name} BUG compiled raised, eager did not: {msg}")
        continue
    rels = []
    for r, o in zip(ref_l, out_l):
        rels.append(float((o - r).abs().max() / r.abs().max().clamp_min(1e-30)))
    bad = max(rels) > 1e-9  # fp64 vs fp64: expect ~1e-14
    print(
        f"RESULT {name} {'BUG' if bad else 'OK'} mix_order_kernels={mix_count()} "
        f"max_rel_err(out,gx,gw,gb)=" + ",".join(f"{v:.2e}" for v in rels)
    )
