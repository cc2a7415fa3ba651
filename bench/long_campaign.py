"""The long-campaign bench: does a campaign keep finding new causes after its first hour, and do
its workers' memory and its disk use stay bounded?

Runs (or continues) one default-mix ``torchsmith fuzz`` campaign in legs: ``--until`` is the
campaign's total time budget, so a leg started with ``--until 60m`` stops at one hour of
campaign time and a later leg (another session) with ``--until 2h`` resumes the same folder
(``fuzz --resume``) and runs the second hour. While a leg runs, every ``--every`` seconds it
appends one line to ``DIR/timeline.jsonl``:

* the campaign's own elapsed time (summed over legs), programs, signatures and causes
  (after background reduction and merging) with their labels: the yield curve;
* the resident memory (RSS) of the fuzz process and of each of its workers (sum and max), the
  bytes in the campaign folder and in Inductor's cache folder: the resource curves.

``--analyze DIR`` prints the curves from the timeline (causes per 15 minutes of campaign time,
RSS and disk at the start, middle and end of each leg, and their slopes).

    python bench/long_campaign.py --out runs/long --until 60m            # first leg
    python bench/long_campaign.py --out runs/long --until 2h             # second leg, resumed
    python bench/long_campaign.py --analyze runs/long

Not a test: hours of compiles. Other load on the machine changes the rates; say so with the
figures.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from torchsmith.campaign.store import Store  # noqa: E402
from torchsmith.campaign.summary import summarize  # noqa: E402
from torchsmith.options import parse_duration  # noqa: E402

TIMELINE = "timeline.jsonl"


def inductor_cache_dir() -> Path:
    """Inductor's machine-wide cache folder (its own default rule): where a campaign's workers
    kept their kernels before ``--inductor-cache-mb``, and where the precompiled header stays."""
    env = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    if env:
        return Path(env)
    user = os.environ.get("USER") or os.environ.get("LOGNAME") or "root"
    return Path(tempfile.gettempdir()) / f"torchinductor_{user}"


def folder_bytes(path: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass  # removed while walking
    return total


def children(pid: int) -> list[int]:
    """All descendants of ``pid`` (from /proc's children lists)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = []
        for task in Path(f"/proc/{p}/task").glob("*"):  # workers start from the slot threads
            try:
                kids += (task / "children").read_text().split()
            except OSError:
                continue
        for k in map(int, kids):
            out.append(k)
            todo.append(k)
    return out


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def is_worker(pid: int) -> bool:
    try:
        return b"torchsmith.execute.child" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def sample(folder: Path, fuzz_pid: int | None) -> dict[str, Any]:
    """One point of the curves."""
    with Store(folder, readonly=True) as store:
        s = summarize(store)
    labels = s.get("labels") or {}
    workers = [p for p in children(fuzz_pid) if is_worker(p)] if fuzz_pid else []
    wrss = [rss_mb(p) for p in workers]
    return {
        "wall": round(time.time(), 1),
        "elapsed_s": round(float(s.get("elapsed_s") or 0.0), 1),
        "programs": s.get("programs", 0),
        "signatures": s.get("signatures", s.get("bugs", 0)),
        "causes": s.get("causes", 0),
        "labels": labels,
        "fuzz_rss_mb": round(rss_mb(fuzz_pid), 1) if fuzz_pid else 0.0,
        "workers": len(workers),
        "worker_rss_mb_sum": round(sum(wrss), 1),
        "worker_rss_mb_max": round(max(wrss, default=0.0), 1),
        "campaign_mb": round(folder_bytes(folder) / 2**20, 1),
        # the campaign's own per-worker folders (inside campaign_mb) and the machine-wide one
        "inductor_cache_mb": round(
            sum(folder_bytes(d) for d in folder.glob("workers/*/inductor-cache")) / 2**20, 1
        ),
        "machine_cache_mb": round(folder_bytes(inductor_cache_dir()) / 2**20, 1),
    }


def run_arms(
    out: Path, minutes: float, seed: int, python: str, arms: dict[str, tuple[str, ...]]
) -> None:
    """Run one leg per arm side by side (one thread each, ``out/<arm>``), each for ``minutes``
    of campaign time with its own extra ``fuzz`` arguments: the A/B benches' runner."""
    import threading

    out.mkdir(parents=True, exist_ok=True)
    until = f"{int(minutes * 60)}s"
    threads = [
        threading.Thread(target=run_leg, args=(out / name, until, seed, 60.0, python, extra))
        for name, extra in arms.items()
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def run_leg(
    out: Path, until: str, seed: int, every: float, python: str, extra: tuple[str, ...] = ()
) -> int:
    """Run (or resume) the campaign in ``out`` until ``until`` of campaign time, sampling the
    curves every ``every`` seconds; ``extra``: more ``fuzz`` arguments for a new campaign."""
    exe = [sys.executable, "-m", "torchsmith", "fuzz", "--time", until, "--jobs", "1"]
    if (out / "campaign.db").exists():
        cmd = [*exe, "--resume", str(out)]
    else:
        cmd = [*exe, "--seed", str(seed), "--out", str(out), "--python", python, *extra]
    print(" ".join(cmd), flush=True)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen(cmd, env=env)
    leg = int(time.time())
    with open(out.parent / f"{out.name}.leg{leg}.log", "a") as log:
        log.write(" ".join(cmd) + "\n")
    while proc.poll() is None:
        time.sleep(every)
        if not (out / "campaign.db").exists():
            continue
        try:
            point = {"leg": leg, **sample(out, proc.pid)}
        except Exception as e:  # a sample lost (store busy) is not a reason to stop the leg
            print(f"sample skipped: {type(e).__name__}: {e}", flush=True)
            continue
        with open(out / TIMELINE, "a") as f:
            f.write(json.dumps(point) + "\n")
    with open(out / TIMELINE, "a") as f:
        f.write(json.dumps({"leg": leg, "end": True, **sample(out, None)}) + "\n")
    return proc.returncode or 0


def slope(points: list[dict[str, Any]], key: str) -> float:
    """Least-squares change of ``key`` per hour of campaign time."""
    xs = [p["elapsed_s"] / 3600 for p in points]
    ys = [float(p[key]) for p in points]
    if len(xs) < 2 or max(xs) == min(xs):
        return 0.0
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    num = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    return num / sum((x - mx) ** 2 for x in xs)


def analyze(folder: Path, bucket_min: float = 15.0) -> dict[str, Any]:
    path = folder / TIMELINE
    if not path.exists():
        raise SystemExit(f"{folder}: no {TIMELINE} (not a long-campaign folder)")
    points = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    running = [p for p in points if not p.get("end")]
    curve = []
    edge, last = bucket_min * 60, {"causes": 0, "signatures": 0, "programs": 0}
    for p in running:
        while p["elapsed_s"] >= edge:
            curve.append({"minute": round(edge / 60), **{k: last[k] for k in last}})
            edge += bucket_min * 60
        last = {k: p[k] for k in ("causes", "signatures", "programs")}
    if running:
        curve.append({"minute": round(running[-1]["elapsed_s"] / 60), **last})
    legs = sorted({p["leg"] for p in points})
    per_leg = []
    for leg in legs:
        lp = [p for p in running if p["leg"] == leg]
        if not lp:
            continue
        per_leg.append(
            {
                "leg": leg,
                "from_min": round(lp[0]["elapsed_s"] / 60, 1),
                "to_min": round(lp[-1]["elapsed_s"] / 60, 1),
                **{
                    k: [lp[0][k], lp[len(lp) // 2][k], lp[-1][k]]
                    for k in (
                        "worker_rss_mb_max",
                        "fuzz_rss_mb",
                        "campaign_mb",
                        "inductor_cache_mb",
                    )
                },
            }
        )
    return {
        "campaign": str(folder),
        "points": len(running),
        "final": points[-1] if points else {},
        "yield_curve": curve,
        "legs": per_leg,
        "slopes_per_hour": {
            k: round(slope(running, k), 1)
            for k in ("causes", "worker_rss_mb_max", "campaign_mb", "inductor_cache_mb")
        },
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, help="The campaign folder (created or resumed).")
    ap.add_argument("--until", default="60m", help="Total campaign time at the end of this leg.")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--every", type=float, default=60.0, help="Seconds between samples.")
    ap.add_argument("--python", default=sys.executable, help="Interpreter of the torch to fuzz.")
    ap.add_argument("--analyze", type=Path, help="Print the curves of this folder; run nothing.")
    args = ap.parse_args(argv)
    if args.analyze is None and args.out is None:
        ap.error("give --out (run a leg) or --analyze DIR")
    if args.analyze is not None and not (args.analyze / TIMELINE).exists():
        print(f"{args.analyze}: no {TIMELINE} (not a long-campaign folder)", file=sys.stderr)
        return 2
    if args.analyze is None:
        try:
            parse_duration(args.until)  # refuse a bad duration before starting anything
        except ValueError as e:
            ap.error(str(e))
        args.out.parent.mkdir(parents=True, exist_ok=True)
        rc = run_leg(args.out, args.until, args.seed, args.every, args.python)
        if rc not in (0, 1):
            print(f"fuzz exited {rc}", file=sys.stderr)
    print(json.dumps(analyze(args.analyze or args.out), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
