"""The peer bench: NNSmith against ``torchsmith fuzz``, same machine, same graph size, one job.

One after the other, each with its own empty Inductor cache:

(n) NNSmith HEAD, installed from its source in its own venv (``--nnsmith-python``), run as its
    README says: ``python -m nnsmith.cli.fuzz model.type=torch backend.type=pt2
    backend.target=cpu mgen.max_nodes=5 fuzz.time=300s fuzz.root=DIR`` (through
    ``bench/peer_nnsmith.py``, which only counts: tests, compute ops, reported bugs);
(t) ``torchsmith fuzz --time 300s --generator graph --gen-option max_nodes=5 --jobs 1``, and the
    same with ``--pack K`` for each K given; with ``--unbatched``, each of those again with one
    g++ run per kernel (``TORCHSMITH_KERNEL_BATCH=0``, Inductor's own way).

Printed per side: programs, programs/min, compute ops per program and per minute, the cores it
kept busy and programs per CPU-minute, what it reported (NNSmith: bug folders from its
eager-vs-compiled ``allclose``; torchsmith: findings and distinct signatures, judged against
fp64), and both ratios to NNSmith. CPU time is the whole process tree's, start-up included
(``getrusage(RUSAGE_CHILDREN)`` around each side): "one job" is not one core when a side lets
Inductor compile kernels in a pool of its own.
NNSmith's clock (``fuzz.time``) starts after its start-up (imports, its dtype test); ours
includes the worker's start (a fresh Python importing torch), so the programs/min comparison
leans NNSmith's way. Both clocks include the first compile's warm-up.

    python bench/peer.py --nnsmith-python /work/nnsmith-venv/bin/python [--time 300]
        [--max-nodes 5] [--pack 4 8] [--unbatched] [--nnsmith-env KEY=VALUE ...] [--json OUT]

``--keep DIR`` keeps both sides' output; ``bench/peer_judge.py --reports DIR/nnsmith-root`` then
replays each NNSmith report and judges it with ``torchsmith check`` (the fp64 rule).

NNSmith's venv, from its source (HEAD bc0af42), with the same torch:

    git clone https://github.com/ise-uiuc/nnsmith && cd nnsmith
    python -m venv ../nnsmith-venv && ../nnsmith-venv/bin/pip install torch==2.13.0 \\
        -r requirements/core.txt z3-solver==4.13.4.0
    SETUPTOOLS_SCM_PRETEND_VERSION=0.2.0 ../nnsmith-venv/bin/pip install --no-deps -e .

``z3-solver`` is pinned: with 5.x, NNSmith's first run (its dtype test, ~6 minutes, cached in
``~/.cache/nnsmith-*``) dies in ``Reshape.type_transfer`` ("Failed asertion :: | 1 != -1"); 4.13
is the release of NNSmith's last commit. Run NNSmith once before the bench so the cache exists.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

from torchsmith.campaign.store import Store  # noqa: E402
from torchsmith.execute import kernel_batch  # noqa: E402


def children_cpu() -> float:
    """CPU seconds (user + system) of every finished child of this process and their children."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_nnsmith(
    python: str, seconds: int, max_nodes: int, work: Path, extra_env: dict[str, str]
) -> dict[str, Any]:
    stats = work / "nnsmith-stats.json"
    env = dict(os.environ, PEER_STATS=str(stats), TORCHINDUCTOR_CACHE_DIR=str(work / "cache-n"))
    env.update(extra_env)
    cmd = [python, str(HERE / "peer_nnsmith.py"), "model.type=torch", "backend.type=pt2",
           "backend.target=cpu", f"mgen.max_nodes={max_nodes}", f"fuzz.time={seconds}s",
           f"fuzz.root={work / 'nnsmith-root'}", f"hydra.run.dir={work / 'nnsmith-hydra'}"]  # fmt: skip
    t0, c0 = time.monotonic(), children_cpu()
    proc = subprocess.run(cmd, env=env, cwd=work, capture_output=True, text=True)
    wall, cpu = time.monotonic() - t0, children_cpu() - c0
    if not stats.exists():
        raise SystemExit(f"NNSmith did not finish (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    s = json.loads(stats.read_text())
    return {"programs": s["tests"], "ops": s["ops"], "seconds": s["wall_s"], "process_s": wall,
            "cpu_s": cpu,
            "reported": f"{s['bugs']} bug folders", "failed_to_make": s["failed_to_make"],
            "command": shlex.join(cmd)}  # fmt: skip


def run_torchsmith(
    seconds: int, max_nodes: int, pack: int, work: Path, batch: bool = True
) -> dict[str, Any]:
    tag = f"p{pack}" + ("" if batch else "-unbatched")
    out = work / f"torchsmith-{tag}"
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=str(work / f"cache-{tag}"))
    env[kernel_batch.BATCH_VAR] = "1" if batch else "0"
    cmd = [sys.executable, "-m", "torchsmith", "fuzz", "--no-reduce", "--time", f"{seconds}s", "--generator",
           "graph", "--gen-option", f"max_nodes={max_nodes}", "--jobs", "1", "--pack", str(pack),
           "--out", str(out), "--json", "--progress-interval", "600"]  # fmt: skip
    t0, c0 = time.monotonic(), children_cpu()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall, cpu = time.monotonic() - t0, children_cpu() - c0
    if proc.returncode not in (0, 1):
        raise SystemExit(f"torchsmith fuzz failed (exit {proc.returncode}):\n{proc.stderr[-3000:]}")
    summary = json.loads(proc.stdout[proc.stdout.index("{") :])
    with Store(out, readonly=True) as store:
        rows = store.rows()
    sigs = {r["signature"] for r in rows if r["finding"] and r["category"] == "bug"}
    findings = sum(1 for r in rows if r["finding"] and r["category"] == "bug")
    return {"programs": len(rows), "ops": sum(r["ops"] or 0 for r in rows),
            "seconds": summary["elapsed_s"], "process_s": wall, "cpu_s": cpu,
            "reported": f"{findings} findings, {len(sigs)} signatures",
            "valid_pct": summary["valid_pct"], "command": shlex.join(cmd[1:])}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--nnsmith-python", required=True, help="Python of NNSmith's own venv.")
    ap.add_argument("--time", type=int, default=300, help="Seconds per side (default 300).")
    ap.add_argument("--max-nodes", type=int, default=5)
    ap.add_argument("--pack", type=int, nargs="*", default=[], help="Also torchsmith --pack K.")
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument(
        "--unbatched", action="store_true",
        help="Also run each torchsmith side with one g++ run per kernel (TORCHSMITH_KERNEL_BATCH=0),"
        " Inductor's own way, to show what batched kernel builds add.",
    )  # fmt: skip
    ap.add_argument(
        "--nnsmith-env", action="append", default=[], metavar="KEY=VALUE",
        help="Extra environment for NNSmith's side (e.g. TORCHINDUCTOR_COMPILE_THREADS=1, "
        "COMPILER_PATH=DIR); repeatable. Default: NNSmith as it ships.",
    )  # fmt: skip
    ap.add_argument(
        "--keep", type=Path, default=None,
        help="Copy both sides' output here (NNSmith's bug folders, the campaigns) to inspect.",
    )  # fmt: skip
    args = ap.parse_args(argv)
    if not Path(args.nnsmith_python).is_file():
        ap.error(f"--nnsmith-python {args.nnsmith_python}: no such interpreter (see the docstring)")
    sides: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="torchsmith-peer-") as tmp:
        work = Path(tmp)
        print(f"(n) NNSmith, {args.time} s ...", file=sys.stderr, flush=True)
        extra = dict(kv.split("=", 1) for kv in args.nnsmith_env)
        sides["NNSmith"] = run_nnsmith(args.nnsmith_python, args.time, args.max_nodes, work, extra)
        for batch in (True, False) if args.unbatched else (True,):
            for k in [1, *args.pack]:
                name = "torchsmith" + ("" if k == 1 else f" --pack {k}")
                name += "" if batch else " unbatched"
                print(f"(t) {name}, {args.time} s ...", file=sys.stderr, flush=True)
                sides[name] = run_torchsmith(args.time, args.max_nodes, k, work, batch)
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            for sub in work.iterdir():
                if not sub.name.startswith("cache-"):
                    copy = shutil.copytree if sub.is_dir() else shutil.copy2
                    copy(sub, args.keep / sub.name)
    n = sides["NNSmith"]
    base = n["programs"] / (n["seconds"] / 60)
    base_cpu = n["programs"] / (n["cpu_s"] / 60)
    print(f"{'side':<32}{'programs':>9}{'s':>7}{'prog/min':>10}{'ops/prog':>9}{'ops/min':>9}"
          f"{'x NNSmith':>11}{'cores':>7}{'prog/CPU-min':>14}{'x NNSmith':>11}  reported")  # fmt: skip
    for name, s in sides.items():
        rate = s["programs"] / (s["seconds"] / 60)
        s["per_min"], s["ops_per_min"] = rate, s["ops"] / (s["seconds"] / 60)
        s["ratio"] = rate / base
        s["cores"] = s["cpu_s"] / s["process_s"]
        s["per_cpu_min"] = s["programs"] / (s["cpu_s"] / 60)
        s["cpu_ratio"] = s["per_cpu_min"] / base_cpu
        per = s["ops"] / s["programs"] if s["programs"] else 0.0
        print(f"{name:<32}{s['programs']:>9}{s['seconds']:>7.0f}{rate:>10.1f}{per:>9.2f}"
              f"{s['ops_per_min']:>9.1f}{s['ratio']:>10.2f}x{s['cores']:>7.2f}"
              f"{s['per_cpu_min']:>14.1f}{s['cpu_ratio']:>10.2f}x  {s['reported']}")  # fmt: skip
    for name, s in sides.items():
        print(f"  {name}: {s['command']}")
    if args.json:
        args.json.write_text(json.dumps(sides, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
