# Candidate: integer floor division with dividend == INT_MIN and a negative
# divisor (int32 / int64), e.g. torch.div(a, b, rounding_mode="floor") or a // b.
# TritonOverrides.floordiv (torch/_inductor/codegen/triton.py) negates both
# operands when b < 0 (`a = 0 - a`), which wraps INT_MIN back to INT_MIN, then
# takes the `~(~a // b)` branch meant for negative dividends -> result has the
# wrong sign: INT_MIN // -3 gives -715827883 instead of +715827882.
# The true quotient is representable (|b| >= 2), so this is a valid program;
# eager CUDA (c10::div_floor_integer) returns the exact floor.
# b == 0 and INT_MIN // -1 (overflow) are deliberately NOT used.
# Rule: integer results must match eager exactly -> BUG on any mismatch or if
# the compiled call raises while eager succeeds.
import os

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)


def f_tensor(a, b):
    return torch.div(a, b, rounding_mode="floor")


def f_op(a, b):
    return a // b


def f_scalar(a):
    return torch.div(a, -3, rounding_mode="floor")


def main():
    for dtype in (torch.int32, torch.int64):
        info = torch.iinfo(dtype)
        a = torch.tensor(
            [info.min, info.min, info.min, info.min, -7, 7, -7, 100, info.min + 1, info.max],
            dtype=dtype,
            device=DEV,
        )
        b = torch.tensor([-3, -2, -5, 7, -2, -2, 2, -7, -3, -3], dtype=dtype, device=DEV)
        dn = str(dtype).split(".")[-1]
        for name, fn, args in (
            ("div_floor_tensor", f_tensor, (a, b)),
            ("floordiv_op", f_op, (a, b)),
            ("div_floor_scalar", f_scalar, (a,)),
        ):
            tag = f"floordiv_intmin_{dn}_{name}"
            try:
                ref = fn(*args)
            except Exception as e:
                print(f"RESULT {tag} ERROR eager raised {type(e).__name__}: {str(e)[:200]}")
                continue
            # sanity: eager against Python floor division
            py = [
                x // y
                for x, y in zip(a.tolist(), (b.tolist() if len(args) == 2 else [-3] * len(a)))
            ]
            if ref.tolist() != py:
                print(f"RESULT {tag} ERROR eager differs from python floor: {ref.tolist()} vs {py}")
                continue
            for backend in ("aot_eager", "inductor"):
                torch._dynamo.reset()
                try:
                    out = torch.compile(fn, backend=backend, fullgraph=True)(*args)
                except Exception as e:
                    print(
                        f"RESULT {tag}_{backend} BUG compiled raised {type(e).__name__}: {str(e)[:200]}"
                    )
                    continue
                if out.dtype != ref.dtype or not torch.equal(out, ref):
                    bad = [
                        (i, ref[i].item(), out[i].item())
                        for i in range(len(ref))
                        if ref[i] != out[i]
                    ]
                    print(f"RESULT {tag}_{backend} BUG mismatch (idx, eager, compiled)={bad[:4]}")
                else:
                    print(f"RESULT {tag}_{backend} OK")


if __name__ == "__main__":
    main()
