# Candidate: casts between float64 and float8 in a Triton kernel.
# TritonOverrides.to_dtype emits `x.to(tl.float8e4nv)` on a tl.float64 value
# (and `x.to(tl.float64)` on fp8). Triton lowers fp<->fp8 via tt.fp_to_fp, whose
# NVIDIA lowering only handles fp16/bf16/fp32 <-> fp8; f64 -> f8E4M3FN is
# reported as "Unsupported conversion from f64 to f8E4M3FN" (LLVM ERROR, which
# aborts the process). Inductor routes int/bool -> fp8 through fp32 but not fp64.
# Eager CUDA supports these casts.
# Inputs are exactly representable in fp32 and inside the fp8 finite range
# (|x| <= 400), so routing through fp32 would be exact (no double rounding, no
# saturation-policy differences).
# Each case runs in its own subprocess (an LLVM abort cannot hide the others).
# Rule: BUG if compiled raises / the child dies while eager succeeds, or the
# compiled result differs bitwise from eager; OK if identical.
import os
import subprocess
import sys

import torch

DEV = os.environ.get("DEV", "cuda")
CASES = [
    ("float64", "float8_e4m3fn"),
    ("float64", "float8_e5m2"),
    ("float8_e4m3fn", "float64"),
    ("float8_e5m2", "float64"),
]


def bits(t):
    if t.dtype in (torch.float8_e4m3fn, torch.float8_e5m2):
        return t.view(torch.uint8).cpu()
    return t.view(torch.int64).cpu()


def run_case(src_name, dst_name):
    torch.manual_seed(0)
    src = getattr(torch, src_name)
    dst = getattr(torch, dst_name)
    name = f"fp8_fp64_{src_name}_to_{dst_name}"
    base = (torch.randn(64, device=DEV) * 10).clamp(-400, 400)  # fp32-exact values
    x = base.to(src) if src == torch.float64 else base.to(src)

    def fn(t):
        return (t * 1).to(dst) if src == torch.float64 else t.to(dst) * 2

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
            idx = msg.find("nsupported")
            snippet = msg[max(idx - 20, 0) : idx + 180] if idx >= 0 else msg[:200]
            print(
                f"RESULT {name}_{backend} BUG compiled raised {type(e).__name__}: {snippet}",
                flush=True,
            )
            continue
        if out.dtype != ref.dtype or not torch.equal(bits(out), bits(ref)):
            nd = (bits(out) != bits(ref)).sum().item() if out.dtype == ref.dtype else -1
            print(
                f"RESULT {name}_{backend} BUG mismatch ({nd} elems differ) eager={ref[:4].float().tolist()} compiled={out[:4].float().tolist()}",
                flush=True,
            )
        else:
            print(f"RESULT {name}_{backend} OK", flush=True)


def main():
    if len(sys.argv) == 3:
        run_case(sys.argv[1], sys.argv[2])
        return
    for src_name, dst_name in CASES:
        name = f"fp8_fp64_{src_name}_to_{dst_name}"
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
            errs = [l for l in p.stderr.splitlines() if "ERROR" in l or "rror" in l]
            tail = (errs or p.stderr.strip().splitlines() or [""])[-1][:200]
            print(f"RESULT {name}_inductor BUG child process died rc={p.returncode}: {tail}")


if __name__ == "__main__":
    main()
