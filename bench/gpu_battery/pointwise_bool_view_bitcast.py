# Candidate: x.view(dtype) between bool and a 1-byte integer type inside a
# fused Triton kernel.
# lowering.to_dtype_bitcast treats bool as 8 bits (so bool<->uint8/int8 views
# become DtypeView -> ops.to_dtype_bitcast), but the Triton kernel holds bool
# values as tl.int1 (loads append `.to(tl.int1)`, comparisons give int1), and
# TritonOverrides.to_dtype_bitcast emits `x.to(tl.uint8, bitcast=True)`:
# Triton refuses bitcasts between different primitive bit widths (1 vs 8).
# Rule: BUG if the compiled call raises while eager succeeds, or the compiled
# (integer/bool) result is not exactly equal to eager.
import os

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)


def f_bool_to_u8(x):  # loaded bool -> uint8 view
    return x.view(torch.uint8) + 1


def f_cmp_to_i8(y):  # computed bool (int1) -> int8 view
    return (y > 0).view(torch.int8) * 3


def f_u8_to_bool(u):  # uint8 (values 0/1 only) -> bool view
    return torch.where(u.view(torch.bool), 1.0, -1.0)


def main():
    x = torch.rand(64, device=DEV) > 0.5
    y = torch.randn(64, device=DEV)
    u = (torch.rand(64, device=DEV) > 0.5).to(torch.uint8)
    cases = [
        ("bool_to_uint8", f_bool_to_u8, x),
        ("cmp_to_int8", f_cmp_to_i8, y),
        ("uint8_to_bool", f_u8_to_bool, u),
    ]
    for name, fn, inp in cases:
        try:
            ref = fn(inp)
        except Exception as e:
            print(f"RESULT bool_view_{name} ERROR eager raised {type(e).__name__}: {str(e)[:200]}")
            continue
        for backend in ("aot_eager", "inductor"):
            torch._dynamo.reset()
            try:
                out = torch.compile(fn, backend=backend, fullgraph=True)(inp)
            except Exception as e:
                msg = str(e).replace("\n", " ")
                idx = msg.find("Cannot bitcast")
                snippet = msg[idx : idx + 200] if idx >= 0 else msg[:200]
                print(
                    f"RESULT bool_view_{name}_{backend} BUG compiled raised {type(e).__name__}: {snippet}"
                )
                continue
            if out.dtype != ref.dtype or not torch.equal(out, ref):
                print(
                    f"RESULT bool_view_{name}_{backend} BUG mismatch eager={ref[:8].tolist()} compiled={out[:8].tolist()}"
                )
            else:
                print(f"RESULT bool_view_{name}_{backend} OK")


if __name__ == "__main__":
    main()
