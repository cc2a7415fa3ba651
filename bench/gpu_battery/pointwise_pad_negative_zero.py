# Candidate: constant padding with value=-0.0 loses the sign of zero in Triton.
# constant_pad_nd lowers to ops.masked(mask, load, -0.0). In the Triton kernel:
#  * need_where=False path: TritonKernel.load emits `other=...` only
#    `if self._load_other:` -> -0.0 is falsy -> `other=0.0` (+0.0).
#  * need_where=True path: TritonKernelOverrides.masked emits
#    `tl.full(shape, -0.0, dtype)`; Triton's scalar_constant maps -0.0 to +0.0
#    (the workaround added to _shaped_constant for PR #176035 is not used here).
# Eager fills the padding with -0.0 (sign bit set).
# Rule: BUG if signbit pattern or (non-NaN) values of compiled output differ
# from eager (bitwise-level check on zeros), or compiled raises.
import os

import torch
import torch.nn.functional as F

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)


def f_plain(x):  # padding stored directly
    return F.pad(x, (2, 3), value=-0.0)


def f_recip(x):  # 1/pad -> -inf in the padding in eager
    return 1.0 / F.pad(x, (2, 3), value=-0.0)


def f_computed(x):  # padded value is computed -> where path
    return torch.signbit(F.pad(x * 2.0 + 1.0, (1, 1, 2, 0), value=-0.0))


def same(a, b):
    if a.dtype == torch.bool:
        return torch.equal(a, b)
    return torch.equal(torch.signbit(a), torch.signbit(b)) and torch.equal(
        torch.nan_to_num(a, nan=0.0), torch.nan_to_num(b, nan=0.0)
    )


def main():
    x = torch.rand(4, 8, device=DEV) + 0.5
    for name, fn in (("plain", f_plain), ("recip", f_recip), ("computed_signbit", f_computed)):
        tag = f"pad_negzero_{name}"
        try:
            ref = fn(x)
        except Exception as e:
            print(f"RESULT {tag} ERROR eager raised {type(e).__name__}: {str(e)[:200]}")
            continue
        for backend in ("aot_eager", "inductor"):
            torch._dynamo.reset()
            try:
                out = torch.compile(fn, backend=backend, fullgraph=True)(x)
            except Exception as e:
                print(
                    f"RESULT {tag}_{backend} BUG compiled raised {type(e).__name__}: {str(e)[:200]}"
                )
                continue
            if not same(out, ref):
                print(
                    f"RESULT {tag}_{backend} BUG eager row0={ref[0, :4].tolist()} compiled row0={out[0, :4].tolist()}"
                )
            else:
                print(f"RESULT {tag}_{backend} OK")


if __name__ == "__main__":
    main()
