"""Campaign throughput: persistent workers against a fresh process per program, same programs.

    python bench/throughput.py [-n 50] [--seed 0] [--jobs 1] [--timeout 300] [--pack K ...]
        [--unbatched] [--scaling] [--skip-fresh] [--json OUT]

Generates ``-n`` programs with the graph generator (seeds ``seed .. seed+n-1``) and checks them
twice, with the same check options (localization on, as in a campaign):

(a) by a campaign (:class:`torchsmith.campaign.loop.Campaign`: long-lived workers, the store, finding
    folders), timed from the campaign's start to its summary, worker start-up included;
(b) with a fresh process per program: ``python -m torchsmith check FILE --json``, which starts
    Python, imports torch, and starts a worker of its own each time.

Each side gets its own empty Inductor cache (``TORCHINDUCTOR_CACHE_DIR``) so neither reuses the
other's compiled kernels; within a side the cache is shared, as it would be for a user.

Reported: programs per minute for both and their ratio (goal: at least 5x), and the campaign's
overhead: its wall time (times ``jobs``) over the time the programs' own load, eager, float64 and
compiled runs took inside the workers, summed over every job (checks and ladder rungs), minus one
(goal: under 15 %). The verdicts of (a) and (b) are compared as a sanity check.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path


def run_campaign(
    n: int,
    seed: int,
    jobs: int,
    timeout: float,
    work: Path,
    pack: int = 1,
    name: str = "a",
    batch: bool = True,
) -> dict:
    from torchsmith.campaign.config import CampaignConfig
    from torchsmith.campaign.loop import Campaign
    from torchsmith.campaign.store import Store
    from torchsmith.execute import kernel_batch
    from torchsmith.options import CheckOptions

    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(work / f"cache-{name}")
    os.environ[kernel_batch.BATCH_VAR] = "1" if batch else "0"  # the workers read it
    cfg = CampaignConfig(
        out=work / f"campaign-{name}", seed=seed, count=n, jobs=jobs, pack=pack,
        options=CheckOptions(timeout=timeout),
    )  # fmt: skip
    t0 = time.perf_counter()
    summary = Campaign(cfg).run()
    wall = time.perf_counter() - t0
    with Store(cfg.out, readonly=True) as store:
        rows = store.rows()
    work_s = sum(r["work_s"] or 0.0 for r in rows)
    # Steady state: programs recorded after the first one, over the time between the first
    # and the last (worker start-up and the first compile's warm-up left out).
    times = sorted(r["recorded"] for r in rows)
    after = sum(1 for t in times if t > times[0]) if times else 0
    steady = after / ((times[-1] - times[0]) / 60) if after else 0.0
    phases: Counter[str] = Counter()
    for r in rows:
        phases.update({k: v for k, v in r["timings"].items() if k != "wall"})
    return {
        "phases": dict(phases),
        "wall_s": wall,
        "work_s": work_s,
        "gen_s": sum(r["gen_s"] or 0.0 for r in rows),
        "verdicts": {r["seed"]: r["verdict"] or r["status"] for r in rows},
        "digests": {r["seed"]: r["digest"] for r in rows},
        "worker_restarts": summary["worker_deaths"],
        "steady_per_min": steady,
    }


def run_fresh(n: int, seed: int, timeout: float, work: Path) -> dict:
    from torchsmith.generate.graph import generate_source

    progs = work / "programs"
    progs.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(work / "cache-b"))
    env.pop("OMP_NUM_THREADS", None)
    verdicts, digests, work_s = {}, {}, 0.0
    t0 = time.perf_counter()
    for s in range(seed, seed + n):
        path = progs / f"gen_{s}.py"
        path.write_text(generate_source(s))
        cmd = [sys.executable, "-m", "torchsmith", "check", str(path), "--json"]
        cmd += ["--timeout", str(timeout)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        try:
            res = json.loads(proc.stdout.strip().splitlines()[-1])
            verdicts[s], digests[s] = res["verdict"], res["digest"]
            work_s += sum(v for k, v in res["timings"].items() if k != "wall")
        except (IndexError, ValueError, KeyError):
            verdicts[s] = f"error (exit {proc.returncode})"
        print(f"  fresh {s - seed + 1}/{n}: {verdicts[s]}", file=sys.stderr, flush=True)
    return {"wall_s": time.perf_counter() - t0, "work_s": work_s, "verdicts": verdicts,
            "digests": digests}  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=50, help="programs (default 50)")
    ap.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--jobs", type=int, default=1, help="campaign workers (default 1)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per job")
    ap.add_argument("--skip-fresh", action="store_true", help="only measure the campaign")
    ap.add_argument(
        "--pack",
        type=int,
        nargs="*",
        default=[],
        help="also campaigns checking K programs per compile (fuzz --pack K)",
    )
    ap.add_argument(
        "--scaling",
        action="store_true",
        help="also each campaign (unpacked and every --pack K) with one job less",
    )
    ap.add_argument(
        "--unbatched",
        action="store_true",
        help="also each campaign with one g++ run per kernel (TORCHSMITH_KERNEL_BATCH=0),"
        " to show what batched kernel builds add",
    )
    ap.add_argument("--json", dest="json_out", help="also write the figures here")
    args = ap.parse_args()
    command = " ".join(shlex.quote(a) for a in [sys.executable.rsplit("/", 1)[-1], *sys.argv])

    with tempfile.TemporaryDirectory(prefix="torchsmith-bench-") as tmp:
        work = Path(tmp)
        print(f"(a) campaign over {args.n} programs ...", file=sys.stderr, flush=True)
        a = run_campaign(args.n, args.seed, args.jobs, args.timeout, work)
        packed = {}
        for k in args.pack:
            print(f"(p{k}) campaign packing {k} per compile ...", file=sys.stderr, flush=True)
            packed[k] = run_campaign(args.n, args.seed, args.jobs, args.timeout, work, k, f"p{k}")
        unbatched = {}
        for k in [1, *args.pack] if args.unbatched else []:
            print(f"(u{k}) campaign packing {k}, unbatched ...", file=sys.stderr, flush=True)
            unbatched[k] = run_campaign(
                args.n, args.seed, args.jobs, args.timeout, work, k, f"u{k}", batch=False
            )
        os.environ.pop("TORCHSMITH_KERNEL_BATCH", None)
        fewer = {}
        for k in [1, *args.pack] if args.scaling and args.jobs > 1 else []:
            print(f"(j{k}) campaign packing {k} with {args.jobs - 1} job(s) ...",
                  file=sys.stderr, flush=True)  # fmt: skip
            fewer[k] = run_campaign(
                args.n, args.seed, args.jobs - 1, args.timeout, work, k, f"j{k}"
            )
        b = None
        if not args.skip_fresh:
            print(f"(b) a fresh process per program ({args.n}) ...", file=sys.stderr, flush=True)
            b = run_fresh(args.n, args.seed, args.timeout, work)

    a_rate = args.n / (a["wall_s"] / 60)
    overhead = (a["wall_s"] * args.jobs - a["work_s"]) / a["work_s"] if a["work_s"] else 0.0
    print(f"\ncommand: {command}")
    print(f"{'mode':<36}{'programs':>9}{'wall s':>10}{'programs/min':>14}{'in-worker s':>13}")
    print(f"{'(a) campaign, persistent workers':<36}{args.n:>9}{a['wall_s']:>10.1f}"
          f"{a_rate:>14.2f}{a['work_s']:>13.1f}")  # fmt: skip
    figures = {
        "n": args.n, "seed": args.seed, "jobs": args.jobs, "campaign_wall_s": a["wall_s"],
        "campaign_per_min": a_rate, "campaign_work_s": a["work_s"], "overhead": overhead,
        "campaign_gen_s": a["gen_s"], "worker_restarts": a["worker_restarts"],
        "campaign_phases_s": a["phases"],
        "verdicts": dict(Counter(a["verdicts"].values())), "command": command,
    }  # fmt: skip
    if b is not None:
        b_rate = args.n / (b["wall_s"] / 60)
        print(f"{'(b) fresh process per program':<36}{args.n:>9}{b['wall_s']:>10.1f}"
              f"{b_rate:>14.2f}{b['work_s']:>13.1f}")  # fmt: skip
        same = sum(a["verdicts"][s] == b["verdicts"].get(s) for s in a["verdicts"])
        same_prog = sum(a["digests"][s] == b["digests"].get(s) for s in a["digests"])
        figures.update(fresh_wall_s=b["wall_s"], fresh_per_min=b_rate, ratio=a_rate / b_rate,
                       same_verdict=same, same_program=same_prog)  # fmt: skip
        print(f"\nspeed-up (a)/(b): {a_rate / b_rate:.1f}x (goal >= 5x)")
        print(f"same programs: {same_prog}/{args.n}, same verdicts: {same}/{args.n}")
    print(f"campaign overhead over in-worker compile+run time: {100 * overhead:.1f}% (goal < 15%)")
    print(f"  (in-worker {a['work_s']:.1f} s; generation {a['gen_s']:.1f} s;"
          f" worker restarts {a['worker_restarts']})")  # fmt: skip
    by_phase = ", ".join(
        f"{k} {v:.1f}" for k, v in sorted(a["phases"].items(), key=lambda t: -t[1])
    )
    print(f"  campaign check jobs by phase (s): {by_phase}")
    print(f"verdicts: {dict(sorted(Counter(a['verdicts'].values()).items()))}")
    stages = {k[8:]: v / args.n for k, v in a["phases"].items() if k.startswith("compile ")}
    if stages:
        print("  compile time per program by stage (s, nested: total holds the others): "
              + ", ".join(f"{k} {v:.2f}" for k, v in stages.items()))  # fmt: skip
    for k, p in packed.items():
        rate = args.n / (p["wall_s"] / 60)
        same = sum(a["verdicts"][s] == p["verdicts"].get(s) for s in a["verdicts"])
        print(f"(p{k}) packing {k} per compile: {rate:.2f} programs/min = {rate / a_rate:.2f}x"
              f" unpacked; same verdicts {same}/{args.n}")  # fmt: skip
        figures[f"pack{k}_per_min"] = rate
        figures[f"pack{k}_same_verdicts"] = same
    for k, u in unbatched.items():
        rate = args.n / (u["wall_s"] / 60)
        batched = a if k == 1 else packed[k]
        b_rate = args.n / (batched["wall_s"] / 60)
        same = sum(batched["verdicts"][s] == u["verdicts"].get(s) for s in batched["verdicts"])
        cxx = [r["phases"].get("compile c++ compile", 0.0) / args.n for r in (u, batched)]
        print(f"(u{k}) packing {k}, one g++ run per kernel: {rate:.2f} programs/min; batched"
              f" is {b_rate / rate:.2f}x that; c++ compile per program {cxx[0]:.2f} s unbatched,"
              f" {cxx[1]:.2f} s batched; same verdicts {same}/{args.n}")  # fmt: skip
        figures[f"unbatched{k}_per_min"] = rate
        figures[f"unbatched{k}_same_verdicts"] = same
    for k, few in fewer.items():
        rate = args.n / (few["wall_s"] / 60)
        many = a if k == 1 else packed[k]
        more = args.n / (many["wall_s"] / 60)
        print(f"(j{k}) packing {k}, {args.jobs - 1} job(s): {rate:.2f} programs/min;"
              f" {args.jobs} jobs: {more:.2f}, {more / rate:.2f}x; steady state (start-up and"
              f" first compile left out): {few['steady_per_min']:.2f} and"
              f" {many['steady_per_min']:.2f}, {many['steady_per_min'] / few['steady_per_min']:.2f}x"
              )  # fmt: skip
        figures[f"fewer_jobs_pack{k}_per_min"] = rate
        figures[f"fewer_jobs_pack{k}_steady_per_min"] = few["steady_per_min"]
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
