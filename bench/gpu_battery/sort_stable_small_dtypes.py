# Candidate (sweep, moderate prior): Inductor's Triton sort (ir.Sort, used for
# torch.sort along a dim of size <= 512, persistent only) runs
# triton_helpers.sort_with_index -> _compare_and_swap_with_index, which
# bitcasts the values to a signed int of the same width
# (tl.core.get_int_dtype(x.dtype.primitive_bitwidth, signed=True)) and moves
# left/right halves with tl.sum(iy * mask).  For bool (tl.int1, width 1) and
# uint8 (bitcast to int8) this is unusual; NaN ordering and stability are
# handled by explicit masks.  Indices are int16 (iota) widened by tl.sum.
#
# Rule: stable=True sorts must equal eager exactly (values and indices,
# NaN==NaN); any mismatch or a compiled exception -> BUG.  Dim size 300 (not a
# power of two, so the rnumel padding path is exercised).
import os

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)

N = 300


def f(x):
    a = torch.sort(x, dim=-1, stable=True)
    b = torch.sort(x, dim=-1, stable=True, descending=True)
    return a.values, a.indices, b.values, b.indices


def make(dtype):
    if dtype == torch.bool:
        return torch.rand(8, N, device=DEV) < 0.5
    if dtype.is_floating_point:
        x = torch.randint(-4, 5, (8, N), device=DEV).to(dtype)  # many ties
        x[1, ::9] = float("nan")
        x[2, ::11] = float("inf")
        x[2, 5::13] = float("-inf")
        return x
    info = torch.iinfo(dtype)
    lo, hi = (0, 9) if info.min == 0 else (-4, 5)
    x = torch.randint(lo, hi, (8, N), device=DEV).to(dtype)
    x[0, ::17] = info.max
    x[0, 3::19] = info.min
    return x


for dtype in (
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int64,
    torch.float16,
    torch.bfloat16,
):
    name = f"sort_stable_{str(dtype)[6:]}_{N}"
    x = make(dtype)
    try:
        ref = f(x)
    except Exception as e:
        print(f"RESULT {name} ERROR eager raised: {type(e).__name__}: {str(e)[:150]}")
        continue
    torch._dynamo.reset()
    try:
        out = torch.compile(f, backend="inductor", fullgraph=True)(x)
        if DEV == "cuda":
            torch.cuda.synchronize()
    except Exception as e:
        msg = (type(e).__name__ + ": " + str(e)).replace("\n", " ")[:200]
        print(f"RESULT {name} BUG compiled raised, eager did not: {msg}")
        continue
    bad = []
    for lbl, r, o in zip(("asc_v", "asc_i", "desc_v", "desc_i"), ref, out):
        if r.dtype != o.dtype or r.shape != o.shape:
            bad.append(f"{lbl} dtype/shape {o.dtype}{tuple(o.shape)} vs {r.dtype}{tuple(r.shape)}")
            continue
        eq = (r == o) | (r.isnan() & o.isnan()) if r.is_floating_point() else (r == o)
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
