# Candidate: under mode="reduce-overhead" (cudagraph trees), an in-place mutation
# of a graph input is silently lost when the input was 16-byte aligned on the
# first call and misaligned (storage_offset*itemsize % 16 != 0) on a later call.
#
# Why (torch 2.13 torch/_inductor/cudagraph_trees.py, cudagraphify_impl ->
# deferred_cudagraphify): the first call computes check_input_idxs (inputs
# inferred aligned) and wraps the cudagraphified fn with
#   align_inputs_from_check_idxs(fn, inputs_to_check=check_input_idxs,
#                                mutated_input_idxs=OrderedSet())
# with the comment "cudagraph will already clones input locally, no need to
# copy back".  A later misaligned input is therefore cloned and the clone is
# what the compiled graph mutates (either via the eager fallback for mutated
# non-cudagraph-managed inputs, or a cudagraph replay); nothing copies the
# mutation back to the user's tensor.  The non-cudagraph path was fixed for
# exactly this in PR #154442 (issue #152425) via maybe_realign_inputs, but that
# is skipped when cudagraphs ran.
#
# Rule: BUG if, after the same call sequence, the user-visible mutated tensors
# (or returned values) differ from eager (exact compare, float32 add of small
# ints is exact).  OK if identical.  ERROR if eager itself fails.
import os

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)


def fn(x, w):
    x.add_(w)  # in-place mutation of a (possibly misaligned) graph input
    return x * 2 + 1


def make_inputs():
    # call 0: aligned fresh tensor; calls 1..3: misaligned views (offset 1, 3, 5 floats)
    g = torch.Generator(device="cpu").manual_seed(0)
    w = torch.randint(-4, 5, (64,), generator=g).float().to(DEV)
    first = torch.randint(-4, 5, (64,), generator=g).float().to(DEV)
    bases = [torch.randint(-4, 5, (80,), generator=g).float().to(DEV) for _ in range(3)]
    return w, first, bases


def run(f):
    w, first, bases = make_inputs()
    outs = []
    outs.append(f(first, w).clone())
    for k, b in enumerate(bases):
        off = 1 + 2 * k
        outs.append(f(b[off : off + 64], w).clone())
    return outs, [first] + bases


def compare(name, ref, got):
    ref_outs, ref_states = ref
    got_outs, got_states = got
    bad = []
    for i, (a, b) in enumerate(zip(ref_outs, got_outs)):
        if not torch.equal(a, b):
            bad.append(f"out{i} maxdiff={(a - b).abs().max().item()}")
    for i, (a, b) in enumerate(zip(ref_states, got_states)):
        if not torch.equal(a, b):
            bad.append(f"state{i} maxdiff={(a - b).abs().max().item()}")
    return bad


try:
    ref = run(fn)
except Exception as e:  # eager failed -> cannot check
    print(
        f"RESULT cudagraphs_misaligned_mutated_input ERROR eager raised {type(e).__name__}: {str(e)[:200]}"
    )
    raise SystemExit(0)

variants = [
    ("aot_eager", dict(backend="aot_eager"), {}),
    ("inductor_default", dict(backend="inductor"), {}),
    ("reduce_overhead", dict(mode="reduce-overhead"), {}),
    ("reduce_overhead_no_partition", dict(mode="reduce-overhead"), {"graph_partition": False}),
]
for vname, ckw, patches in variants:
    torch._dynamo.reset()
    try:
        patches = {k: v for k, v in patches.items() if hasattr(torch._inductor.config, k)}
        with torch._inductor.config.patch(patches):
            cf = torch.compile(fn, **ckw)
            got = run(cf)
        bad = compare(vname, ref, got)
        if bad:
            print(
                f"RESULT cudagraphs_misaligned_mutated_input[{vname}] BUG compiled differs from eager "
                f"(mutation of misaligned input lost?): {'; '.join(bad)[:300]}"
            )
        else:
            print(f"RESULT cudagraphs_misaligned_mutated_input[{vname}] OK")
    except Exception as e:
        print(
            f"RESULT cudagraphs_misaligned_mutated_input[{vname}] BUG compiled raised "
            f"{type(e).__name__}: {str(e)[:200]}"
        )


# Variant 2 (not yet run on a GPU): the mutated input is a view of a cudagraph-pool output of
# another compiled function (a "cudagraph-managed" input, mutation of which cudagraph trees
# support via config.triton.cudagraph_support_input_mutation).  Aligned view on step 0,
# misaligned views afterwards -> the same no-copy-back alignment wrapper applies.
def producer(a):
    return a * 1.0 + 0.0


def consumer(x, w):
    x.add_(w)
    return x * 2 + 1


def run_managed(prod, cons, mark):
    g = torch.Generator(device="cpu").manual_seed(1)
    w = torch.randint(-4, 5, (64,), generator=g).float().to(DEV)
    outs, states = [], []
    for k in range(4):
        if mark:
            torch.compiler.cudagraph_mark_step_begin()
        a = torch.randint(-4, 5, (80,), generator=g).float().to(DEV)
        b = prod(a)
        off = 0 if k == 0 else 2 * k - 1
        outs.append(cons(b[off : off + 64], w).clone())
        states.append(b.clone())
    return outs, states


try:
    ref_m = run_managed(producer, consumer, False)
except Exception as e:
    print(
        f"RESULT cudagraphs_misaligned_mutated_input[managed] ERROR eager raised {type(e).__name__}: {str(e)[:200]}"
    )
else:
    torch._dynamo.reset()
    try:
        got_m = run_managed(
            torch.compile(producer, mode="reduce-overhead"),
            torch.compile(consumer, mode="reduce-overhead"),
            DEV == "cuda",
        )
        bad = compare("managed", ref_m, got_m)
        if bad:
            print(
                f"RESULT cudagraphs_misaligned_mutated_input[managed_reduce_overhead] BUG compiled differs "
                f"from eager: {'; '.join(bad)[:300]}"
            )
        else:
            print("RESULT cudagraphs_misaligned_mutated_input[managed_reduce_overhead] OK")
    except Exception as e:
        print(
            f"RESULT cudagraphs_misaligned_mutated_input[managed_reduce_overhead] BUG compiled raised "
            f"{type(e).__name__}: {str(e)[:200]}"
        )
