"""Which part of a compile is fixed and which grows with graph size.

    python bench/compile_stages.py [--sizes 1 5 10 20 40] [-n 12] [--seed 0] [--unbatched]
        [--json OUT]

For each size S, a campaign checks ``-n`` graph programs of exactly S ops
(``min_nodes = max_nodes = S``, one job, no packing, localization off so every row is one
compile). Each setting gets its own empty Inductor cache, warmed by a two-program campaign of
other seeds (the first C++ compile into an empty cache builds Inductor's precompiled header,
seconds that no later program pays), and Inductor's FX graph cache is off so that a small graph
drawn twice is compiled twice. Every check stores its compile time per stage from
torch's own counters (``torchsmith.oracle.compile_times``: Dynamo trace, AOTAutograd, Inductor,
codegen, the C++ compile, guards; nested, ``total`` holds the others); the first program of each
campaign is left out (the worker's first compile pays one-time warm-up).

Printed: the median seconds per stage at each size, then per stage a least-squares line through
the sizes' medians, ``seconds = fixed + per_op * ops`` (ops as the store counts them; medians,
so one slow outlier does not move the line), and the fixed part's share of a 5-op program's time
in that stage. A stage whose fixed part dominates is what packing saves; one that grows per op
is what it cannot.

``--unbatched`` runs every size again with one g++ run per kernel (``TORCHSMITH_KERNEL_BATCH=0``)
to show how the C++ compile grows with kernels when each pays its own compiler start.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import tempfile
from pathlib import Path

# Stages worth a line, in pipeline order (labels of ``compile_times.STAGES``).
STAGES = ("total", "dynamo trace", "aot autograd", "inductor", "codegen", "c++ compile", "guards")


def run_size(
    size: int, args: argparse.Namespace, work: Path, batch: bool, count: int = 0, seed: int = -1
) -> list[dict]:
    """One campaign of ``-n`` programs of ``size`` ops: per kept program, ops and stage seconds."""
    from torchsmith.campaign.config import CampaignConfig
    from torchsmith.campaign.loop import Campaign
    from torchsmith.campaign.store import Store
    from torchsmith.execute import kernel_batch
    from torchsmith.options import CheckOptions

    count, seed = count or args.n, args.seed if seed < 0 else seed
    name = f"s{size}-{seed}{'' if batch else '-u'}"
    # The workers read these from the environment.
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(work / f"cache{'' if batch else '-u'}")
    os.environ["TORCHINDUCTOR_FX_GRAPH_CACHE"] = "0"
    os.environ[kernel_batch.BATCH_VAR] = "1" if batch else "0"
    cfg = CampaignConfig(
        out=work / name, seed=seed, count=count, jobs=1, pack=1,
        gen_options={"min_nodes": size, "max_nodes": size},
        options=CheckOptions(timeout=args.timeout, localize=False),
    )  # fmt: skip
    Campaign(cfg).run()
    with Store(cfg.out, readonly=True) as store:
        rows = sorted(store.rows(status="checked"), key=lambda r: r["recorded"])
    kept = []
    for r in rows[1:]:  # the first compile of a fresh worker pays warm-up
        stages = {k[8:]: v for k, v in r["timings"].items() if k.startswith("compile ")}
        if stages:
            kept.append({"ops": r["ops"] or 0, "verdict": r["verdict"], "stages": stages})
    return kept


def fit(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Least-squares ``y = a + b * x``; (a, b). One distinct x gives (mean y, 0)."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return my, 0.0
    b = sum((x - mx) * (y - my) for x, y in points) / sxx
    return my - b * mx, b


def report(label: str, by_size: dict[int, list[dict]]) -> dict:
    """Print the table and the fits for one setting; the figures as a dict."""
    print(f"\n{label}: median seconds per program by stage (nested: total holds the others)")
    print(f"{'size':>5}{'ops':>5}{'programs':>10}" + "".join(f"{s:>14}" for s in STAGES))
    medians: dict[int, dict[str, float]] = {}
    for size, kept in by_size.items():
        med = {
            s: statistics.median([k["stages"].get(s, 0.0) for k in kept]) if kept else 0.0
            for s in STAGES
        }
        medians[size] = med
        ops = statistics.median([k["ops"] for k in kept]) if kept else 0
        print(f"{size:>5}{ops:>5g}{len(kept):>10}" + "".join(f"{med[s]:>14.3f}" for s in STAGES))
    print(f"{'stage':<14}{'fixed s':>10}{'per op s':>10}{'fixed share at 5 ops':>22}")
    fits = {}
    ops = {
        size: statistics.median([k["ops"] for k in kept]) for size, kept in by_size.items() if kept
    }
    for s in STAGES:
        pts = [(float(ops[size]), medians[size][s]) for size in ops]
        if not pts:
            continue
        a, b = fit(pts)
        at5 = a + 5 * b
        share = a / at5 if at5 > 0 else 0.0
        fits[s] = {"fixed_s": a, "per_op_s": b, "fixed_share_at_5": share}
        print(f"{s:<14}{a:>10.3f}{b:>10.4f}{100 * share:>21.0f}%")
    return {"medians": medians, "fits": fits}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1, 5, 10, 20, 40])
    ap.add_argument("-n", type=int, default=12, help="programs per size (default 12)")
    ap.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per job")
    ap.add_argument("--unbatched", action="store_true", help="also one g++ run per kernel")
    ap.add_argument("--json", dest="json_out", help="also write the figures here")
    args = ap.parse_args()
    if args.n < 2 or min(args.sizes) < 1:
        ap.error("-n must be at least 2 (the first program is left out) and sizes at least 1")
    command = " ".join(shlex.quote(a) for a in [sys.executable.rsplit("/", 1)[-1], *sys.argv])
    settings = [("batched kernel builds (the default)", True)]
    if args.unbatched:
        settings.append(("one g++ run per kernel", False))
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="torchsmith-stages-") as tmp:
        runs = {}
        for label, batch in settings:
            runs[label] = {}
            print(f"[{label}] warm-up ...", file=sys.stderr, flush=True)
            run_size(5, args, Path(tmp), batch, count=2, seed=10**6)
            for size in args.sizes:
                print(f"[{label}] {args.n} programs of {size} ops ...", file=sys.stderr, flush=True)
                runs[label][size] = run_size(size, args, Path(tmp), batch)
    print(f"command: {command}")
    for label, by_size in runs.items():
        results[label] = report(label, by_size)
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"command": command, **results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
