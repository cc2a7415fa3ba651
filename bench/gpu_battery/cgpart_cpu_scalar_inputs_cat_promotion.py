# Candidate: with CUDA graphs + graph partition (mode="reduce-overhead"; graph_partition is on by
# default outside fbcode), post_grad.move_constructors_to_gpu runs ConstructorMoverPass with
# allow_inputs=True. All movable CPU 0-d tensor *graph inputs* are batched into ONE host->device
# copy: unsqueeze each, aten.cat them, device_put, unbind (post_grad.py ConstructorMoverPass.__call__,
# the `movable_cpu_placeholders` block). aten.cat type-promotes, so CPU scalars of different dtypes
# (e.g. an int64 count and a float32 scale) come back as the promoted dtype: the int64 scalar
# becomes float32 (value rounded above 2**24) and every consumer changes dtype/value.
# Checked on CPU by running the pass itself with a "meta" target device: x(int64) + si turns into
# float32. Needs a GPU for the end-to-end check.
# BUG rule: compiled output dtype != eager dtype, or integer output not exactly equal to eager,
# or float output differs by more than 1e-6 relative.
import os

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)


def f(x, si, sf):
    # si: CPU int64 0-d tensor, sf: CPU float32 0-d tensor (both legal with CUDA x)
    return x + si, x.float() * sf


def f_same_dtype(x, si, sj):
    # control: two int64 CPU scalars (cat does not change anything)
    return x + si, x * sj


def compare(name, ref, out):
    bad = []
    for i, (r, o) in enumerate(zip(ref, out)):
        if r.dtype != o.dtype:
            bad.append(f"out{i}: dtype {o.dtype} vs eager {r.dtype}")
        elif r.dtype.is_floating_point:
            d = ((o.double() - r.double()).abs() / r.double().abs().clamp_min(1)).max().item()
            if d > 1e-6:
                bad.append(f"out{i}: rel diff {d:.3e}")
        elif not torch.equal(o, r):
            bad.append(f"out{i}: max |diff| {(o.double() - r.double()).abs().max().item():.3e}")
    return bad


def run(name, fn, args):
    try:
        ref = fn(*args)
    except Exception as e:
        print(f"RESULT {name} ERROR eager raised {type(e).__name__}: {str(e)[:200]}")
        return
    torch._dynamo.reset()
    opts = {"triton.cudagraphs": True, "graph_partition": True} if DEV == "cuda" else {}
    try:
        cf = torch.compile(fn, backend="inductor", options=opts)
        problems = []
        for it in range(3):  # warmup, record, replay
            out = cf(*args)
            out = [o.clone() for o in out]
            problems += [f"call{it} {p}" for p in compare(name, ref, out)]
    except Exception as e:
        msg = str(e).replace("\n", " ")
        print(f"RESULT {name} BUG compiled raised {type(e).__name__}: {msg[:200]}")
        return
    print(
        f"RESULT {name} {'BUG' if problems else 'OK'} "
        + ("; ".join(problems[:4]) if problems else "matches eager")
    )


x = torch.arange(8, device=DEV, dtype=torch.int64)
si = torch.tensor(2**40 + 1)  # CPU int64 scalar, not representable in float32
sf = torch.tensor(0.5)  # CPU float32 scalar
run("cgpart_mixed_int64_float32_cpu_scalars", f, (x, si, sf))
run("cgpart_control_two_int64_cpu_scalars", f_same_dtype, (x, si, torch.tensor(3)))
