# Candidate: mode="reduce-overhead" with torch._inductor.config.triton.cudagraph_trees=False
# (legacy non-tree cudagraphs, a documented config) silently mis-handles input mutation:
#   (A) an in-place mutation of a plain (non-static) input is applied to cudagraph's private
#       static copy, never to the user's tensor;
#   (B) an in-place mutation of a module buffer (static input) is applied twice on the first
#       call (warmup run + first replay), so buffer state and outputs drift from eager.
#
# Why (torch 2.13):
#   output_code.py ~L611-628: when config.triton.cudagraph_support_input_mutation is True
#   (the OSS default, config.py ~L1840) the compile-time mutation check is skipped
#   ("Check mutation later to support cudagraph-managed tensors", has_mutation=None).
#   The "later" check only exists in the cudagraph-tree manager
#   (cudagraph_trees.py CUDAGraphTreeManager._run -> _update_non_cudagraph_managed_mutation).
#   The non-tree path compile_fx.py cudagraphify -> cudagraphify_impl (~L1955-2047) never
#   checks mutation: it copies non-static inputs into static_inputs, runs a warmup on them,
#   records, and replays.  cudagraph_utils.check_for_mutation has a non-tree branch with the
#   comment "doesn't work for non-trees because the warmup run would apply mutation twice",
#   but nothing calls it for non-trees.
#
# Rule: run the same sequence of calls eagerly and compiled; BUG if any step's output or the
# final value of a mutated tensor differs from eager (exact compare; values are small ints in
# float32 so everything is exact).  OK if identical.  ERROR if eager fails.
import os

import torch

DEV = os.environ.get("DEV", "cuda")
torch.manual_seed(0)
N = 4


def fn_plain(x, y):
    x.mul_(2)  # mutate a plain graph input
    return x + y


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("count", torch.zeros(16, device=DEV))

    def forward(self, x):
        self.count.add_(1)  # mutate a buffer (static input)
        return x * self.count


def run_plain(f):
    g = torch.Generator(device="cpu").manual_seed(0)
    outs, xs = [], []
    for _ in range(N):
        x = torch.randint(-4, 5, (16,), generator=g).float().to(DEV)
        y = torch.randint(-4, 5, (16,), generator=g).float().to(DEV)
        outs.append(f(x, y).clone())
        xs.append(x)
    return outs, xs


def run_buffer(make_f):
    m = Counter()
    f = make_f(m)
    g = torch.Generator(device="cpu").manual_seed(1)
    outs = []
    for _ in range(N):
        x = torch.randint(-4, 5, (16,), generator=g).float().to(DEV)
        outs.append(f(x).clone())
    return outs, [m.count.clone()]


def diff(ref, got):
    bad = []
    for tag, rl, gl in (("out", ref[0], got[0]), ("state", ref[1], got[1])):
        for i, (a, b) in enumerate(zip(rl, gl)):
            if not torch.equal(a, b):
                bad.append(f"{tag}{i} maxdiff={(a - b).abs().max().item()}")
    return bad


try:
    ref_plain = run_plain(fn_plain)
    ref_buf = run_buffer(lambda m: m)
except Exception as e:
    print(
        f"RESULT cudagraphs_nontree_input_mutation ERROR eager raised {type(e).__name__}: {str(e)[:200]}"
    )
    raise SystemExit(0)


def patches_for(trees, partition):
    p = {"triton.cudagraph_trees": trees}
    if hasattr(torch._inductor.config, "graph_partition"):
        p["graph_partition"] = partition
    return p


variants = [
    ("aot_eager", dict(backend="aot_eager"), {}),
    ("reduce_overhead_trees", dict(mode="reduce-overhead"), patches_for(True, True)),
    ("reduce_overhead_NOtrees_partition", dict(mode="reduce-overhead"), patches_for(False, True)),
    (
        "reduce_overhead_NOtrees_nopartition",
        dict(mode="reduce-overhead"),
        patches_for(False, False),
    ),
]

for case, runner, ref in (("plain_input", run_plain, ref_plain), ("buffer", run_buffer, ref_buf)):
    for vname, ckw, patches in variants:
        torch._dynamo.reset()
        name = f"cudagraphs_nontree_input_mutation[{case},{vname}]"
        try:
            with torch._inductor.config.patch(patches):
                if case == "plain_input":
                    got = runner(torch.compile(fn_plain, **ckw))
                else:
                    got = runner(lambda m: torch.compile(m, **ckw))
            bad = diff(ref, got)
            if bad:
                print(f"RESULT {name} BUG compiled differs from eager: {'; '.join(bad)[:300]}")
            else:
                print(f"RESULT {name} OK")
        except Exception as e:
            print(f"RESULT {name} BUG compiled raised {type(e).__name__}: {str(e)[:200]}")
