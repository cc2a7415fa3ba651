# Candidate (sweep, moderate prior): Inductor lowers cummax/cummin to ir.Scan
# with a (value, index) combine fn (get_reduction_combine_fn("argmax",
# arg_break_ties_left=False)).  Small dtypes are NOT upcast for scans except
# fp16/bf16 (codegen/triton.py scan(): upcast_compute_type), so bool (tl.int1),
# int8 and uint8 go through tl.associative_scan and, for the looped
# (non-persistent) scan, through triton_helpers.select_one (bitcast to an
# unsigned int of the same width, multiply by a mask, tl.sum) and an
# accumulator initialised with tl.full(..., 0/nan, acc_type).  Ties must give
# the LAST index (eager: greater_equal), NaN must propagate with the index of
# the last NaN.
#
# Rule: exact comparison with eager of values and indices -> BUG on any
# mismatch or if compiled raises.  Two sizes: 257 (persistent scan) and 5000
# (looped scan).
import os

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)


def f(x):
    a, ai = torch.cummax(x, dim=-1)
    b, bi = torch.cummin(x, dim=-1)
    return a, ai, b, bi


def make(dtype, n):
    if dtype == torch.bool:
        return torch.rand(4, n, device=DEV) < 0.3
    if dtype.is_floating_point:
        x = torch.randint(-3, 4, (4, n), device=DEV).to(dtype)  # many ties
        x[1, n // 3] = float("nan")
        x[1, n // 2] = float("nan")
        x[2, ::7] = -0.0
        x[3, n // 5] = float("inf")
        x[3, n // 4] = float("-inf")
        return x
    info = torch.iinfo(dtype)
    x = torch.randint(-3, 4, (4, n), device=DEV)
    if info.min == 0:
        x = x + 3
    x = x.to(dtype)
    x[0, n // 2] = info.max
    x[0, n // 3] = info.min
    return x


def g(xs, xl):
    return f(xs) + f(xl)


LBL = ("cummax_v", "cummax_i", "cummin_v", "cummin_i")
for dtype in (torch.bool, torch.int8, torch.uint8, torch.int64, torch.float16):
    # 257: persistent scan; 5000 (> 1024, <= 8192 so no split that would make
    # cummax fall back to aten): looped scan.  One compile per dtype.
    name = f"scan_cummax_cummin_{str(dtype)[6:]}_257_and_5000"
    xs, xl = make(dtype, 257), make(dtype, 5000)
    try:
        ref = g(xs, xl)
    except Exception as e:
        print(f"RESULT {name} ERROR eager raised: {type(e).__name__}: {str(e)[:150]}")
        continue
    torch._dynamo.reset()
    try:
        out = torch.compile(g, backend="inductor", fullgraph=True)(xs, xl)
        if DEV == "cuda":
            torch.cuda.synchronize()
    except Exception as e:
        msg = (type(e).__name__ + ": " + str(e)).replace("\n", " ")[:200]
        print(f"RESULT {name} BUG compiled raised, eager did not: {msg}")
        continue
    bad = []
    for k, (r, o) in enumerate(zip(ref, out)):
        lbl = ("n257_" if k < 4 else "n5000_") + LBL[k % 4]
        if r.dtype != o.dtype or r.shape != o.shape:
            bad.append(f"{lbl} dtype/shape {o.dtype} vs {r.dtype}")
            continue
        if r.is_floating_point():
            eq = (r == o) | (r.isnan() & o.isnan())
        else:
            eq = r == o
        n_bad = int((~eq).sum())
        if n_bad:
            idx = (~eq).nonzero()[0].tolist()
            bad.append(
                f"{lbl} mismatches={n_bad} first_at={idx} eager={r[tuple(idx)].item()} compiled={o[tuple(idx)].item()}"
            )
    print(
        f"RESULT {name} {'BUG' if bad else 'OK'} "
        + ("; ".join(bad) if bad else "values and indices equal")
    )
