# Candidate: Triton codegen of float8 -> integer / bool casts.
# TritonOverrides.to_dtype (torch/_inductor/codegen/triton.py) special-cases
# int/bool -> fp8 (routes through fp32) but NOT fp8 -> int/bool: it emits
# `tmp.to(tl.int32)` (or `(tmp != 0)` for bool, `tmp.to(tl.int16).to(tl.uint8)`
# for uint8) directly on an fp8 value. Triton's semantic.cast only converts
# "standard floating" types to int ("cannot cast ... fp8e4nv ... to int32"), and
# fp8 comparisons may not lower. Eager CUDA supports all these casts.
# Each case runs in its own subprocess so an LLVM abort in one case cannot hide
# the others.
# Rule: BUG if the compiled call raises / the child dies while eager succeeds,
# or the compiled integer/bool result differs exactly from eager; OK if equal.
import os
import subprocess
import sys

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)

VALS = [
    0.0,
    1.0,
    -1.0,
    2.5,
    -3.75,
    7.0,
    100.0,
    -100.0,
    0.5,
    -0.25,
    12.0,
    64.0,
    -0.0,
    3.0,
    -2.0,
    240.0,
]
CASES = [
    ("float8_e4m3fn", "int32"),
    ("float8_e4m3fn", "uint8"),
    ("float8_e4m3fn", "bool"),
    ("float8_e5m2", "int64"),
]


def run_case(src_name, dst_name):
    src = getattr(torch, src_name)
    dst = getattr(torch, dst_name)
    name = f"fp8_to_int_{src_name}_to_{dst_name}"
    v = [x for x in VALS if not (dst == torch.uint8 and x < 0)]  # negative->uint8 left out
    x = torch.tensor(v, dtype=torch.float32, device=DEV).to(src)

    def fn(t):
        y = t.to(dst)
        return y if dst == torch.bool else y + 1  # +1 keeps it a fused pointwise kernel

    try:
        ref = fn(x)
    except Exception as e:
        print(f"RESULT {name} ERROR eager raised {type(e).__name__}: {str(e)[:200]}", flush=True)
        return
    for backend in ("aot_eager", "inductor"):
        torch._dynamo.reset()
        try:
            out = torch.compile(fn, backend=backend, fullgraph=True)(x)
        except Exception as e:
            msg = str(e).replace("\n", " ")
            idx = msg.find("cannot cast")
            snippet = msg[idx : idx + 200] if idx >= 0 else msg[:200]
            print(
                f"RESULT {name}_{backend} BUG compiled raised {type(e).__name__}: {snippet}",
                flush=True,
            )
            continue
        if out.dtype != ref.dtype or not torch.equal(out.cpu(), ref.cpu()):
            print(
                f"RESULT {name}_{backend} BUG mismatch eager={ref.tolist()} compiled={out.tolist()}",
                flush=True,
            )
        else:
            print(f"RESULT {name}_{backend} OK", flush=True)


def main():
    if len(sys.argv) == 3:
        run_case(sys.argv[1], sys.argv[2])
        return
    for src_name, dst_name in CASES:
        name = f"fp8_to_int_{src_name}_to_{dst_name}"
        try:
            p = subprocess.run(
                [sys.executable, os.path.abspath(__file__), src_name, dst_name],
                capture_output=True,
                text=True,
                timeout=120,
                env=dict(os.environ),
            )
        except subprocess.TimeoutExpired:
            print(f"RESULT {name} ERROR child timed out")
            continue
        lines = [l for l in p.stdout.splitlines() if l.startswith("RESULT ")]
        for l in lines:
            print(l)
        if p.returncode != 0 or len(lines) < 2:
            tail = (p.stderr.strip().splitlines() or [""])[-1][:200]
            print(f"RESULT {name}_inductor BUG child process died rc={p.returncode}: {tail}")


if __name__ == "__main__":
    main()
