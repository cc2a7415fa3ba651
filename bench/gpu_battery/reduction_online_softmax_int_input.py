# Candidate: the CUDA/XPU-only post-grad pattern prepare_softmax_pattern
# (fx_passes/post_grad.py: amax(dim,keepdim) -> sub -> exp -> sum(dim,keepdim))
# is matched on the aten graph without any dtype check.  For an INTEGER input x
# the user program is valid in eager (x - amax is integer, exp() promotes to
# float32, the sum is float32), but the replacement prepare_softmax_online(x)
# is lowered (lowering.py prepare_softmax_online -> _make_reduction_inner with
# dtype=None) as an OnlineSoftmaxReduction whose dst/src dtype is the INTEGER
# dtype: the Triton codegen then builds int accumulators
# (`tl.full(..., float('-inf'), tl.int64)`), calls exp on ints, and stores the
# sum as an integer (while the FX meta says float32).  Expected symptom: Triton
# compile error or a wrong (truncated) softmax denominator.
#
# Rule: BUG if the compiled call raises (eager does not), or if
# max|compiled - fp64 ref| > 100 * max|eager - fp64 ref| and > 1e-4.
import os

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)


def softmax_like(x):
    m = x.amax(dim=-1, keepdim=True)
    e = (x - m).exp()
    return e / e.sum(dim=-1, keepdim=True)


def logsumexp_like(x):
    m = x.amax(dim=-1, keepdim=True)
    s = (x - m).exp().sum(dim=-1, keepdim=True)
    return s.log() + m


cases = []
# 100: persistent kernel (two-pass fallback inside the online reduction);
# 4096: looped online-softmax accumulation.
for dtype, ncol in ((torch.int64, 100), (torch.int64, 4096), (torch.int32, 4096)):
    x = torch.randint(-6, 7, (16, ncol), device=DEV, dtype=dtype)
    cases.append((f"{str(dtype)[6:]}_{ncol}", x))

for fn in (softmax_like, logsumexp_like):
    for tag, x in cases:
        name = f"online_softmax_int_input_{fn.__name__}_{tag}"
        try:
            eager = fn(x)
            ref = fn(x.double())
        except Exception as e:
            print(f"RESULT {name} ERROR eager raised: {type(e).__name__}: {str(e)[:150]}")
            continue
        eager_err = float((eager.double() - ref).abs().max())
        for backend in ("aot_eager", "inductor"):
            torch._dynamo.reset()
            try:
                out = torch.compile(fn, backend=backend, fullgraph=True)(x)
                if DEV == "cuda":
                    torch.cuda.synchronize()
            except Exception as e:
                msg = (type(e).__name__ + ": " + str(e)).replace("\n", " ")[:200]
                print(f"RESULT {name}_{backend} BUG compiled raised, eager did not: {msg}")
                continue
            if out.dtype != eager.dtype or out.shape != eager.shape:
                print(
                    f"RESULT {name}_{backend} BUG dtype/shape {out.dtype}{tuple(out.shape)} "
                    f"vs eager {eager.dtype}{tuple(eager.shape)}"
                )
                continue
            comp_err = float((out.double() - ref).abs().max())
            bad = comp_err > 100 * eager_err and comp_err > 1e-4
            print(
                f"RESULT {name}_{backend} {'BUG' if bad else 'OK'} "
                f"eager_max_abs_err_vs_fp64={eager_err:.3e} compiled_max_abs_err_vs_fp64={comp_err:.3e}"
            )
