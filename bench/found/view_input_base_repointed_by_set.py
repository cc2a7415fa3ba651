# A bug torchsmith found (see README.md here); runs on torch 2.13.0 CPU, default settings.
# A view input whose base was re-pointed with `set_()` (or `.data =`) before the call:
# `v = x[1]; x.set_(torch.ones(3, 4))` leaves `v._base is x` though they no longer share memory.
# Passing both to a compiled function that mutates `v` makes AOTAutograd treat them as aliases
# and build a synthetic base from `v._base` (torch/_functorch/_aot_autograd/runtime_wrappers.py,
# `merge_view_inputs` and the synthetic-base wrapper): the mutation of `v` is written into
# `x` instead (x[1] becomes 2, v stays [4, 5, 6, 7] where eager gives [8, 10, 12, 14]) and
# `a + 1` reads the wrong values: silent, from `aot_eager` on. A plain script: the stale
# `_base` is the input, which a program's inputs cannot carry through torchsmith's copies.
import torch


def f(a, b):
    b.mul_(2)
    return a + 1


if __name__ == "__main__":
    results = {}
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        x = torch.arange(12.0).view(3, 4).clone()
        v = x[1]
        x.set_(torch.ones(3, 4))
        run = f if backend == "eager" else torch.compile(f, backend=backend)
        out = run(x, v)
        results[backend] = (out[1].tolist(), v.tolist(), x[1].tolist())
        print(
            f"{backend:9s} out[1] = {results[backend][0]}, v = {results[backend][1]}, "
            f"x[1] = {results[backend][2]}"
        )
    bad = any(results[b] != results["eager"] for b in ("aot_eager", "inductor"))
    print("BUG: the mutation of v went into x" if bad else "ok")
