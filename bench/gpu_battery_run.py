"""Run the GPU battery (``bench/gpu_battery/*.py``): each script in its own process, a few at a
time, each under a time limit and all under one deadline; keep every log and gather the scripts'
``RESULT <name> BUG|OK|ERROR ...`` lines into one file.

    python3 bench/gpu_battery_run.py LOG_DIR [--jobs 6] [--each 150] [--deadline 330]

A script that prints no RESULT line (it crashed, hung or was cut by the deadline) gets a
``NORESULT <script> <exit status> <last output>`` line instead, so none goes missing silently.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).parent / "gpu_battery"


def run_one(script: Path, logs: Path, each: float, stop_at: float) -> list[str]:
    log = logs / f"{script.stem}.txt"
    left = stop_at - time.monotonic()
    if left < 10:
        log.write_text("not run: battery deadline\n")
        return [f"NORESULT {script.stem} not-run battery deadline"]
    t0 = time.monotonic()
    # output straight to the log (no pipe a compile worker could hold open), in a session of its
    # own so a timeout kills the script's whole process group, compile workers included
    with log.open("w") as out:
        proc = subprocess.Popen(
            [sys.executable, str(script)], stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
        try:
            status = str(proc.wait(timeout=min(each, left)))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            status = f"timeout {min(each, left):.0f} s"
    text = log.read_text(errors="replace")
    with log.open("a") as out:
        out.write(f"\nexit {status} after {time.monotonic() - t0:.0f} s\n")
    results = [line for line in text.splitlines() if line.startswith("RESULT ")]
    if results:
        return results
    tail = " | ".join(text.strip().splitlines()[-2:])[:300]
    return [f"NORESULT {script.stem} exit={status} {tail}"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("logs", type=Path)
    ap.add_argument("--jobs", type=int, default=6)
    ap.add_argument("--each", type=float, default=150.0)
    ap.add_argument("--deadline", type=float, default=330.0)
    a = ap.parse_args()
    a.logs.mkdir(parents=True, exist_ok=True)
    scripts = sorted(HERE.glob("*.py"))
    stop_at = time.monotonic() + a.deadline
    t0 = time.monotonic()
    with ThreadPoolExecutor(a.jobs) as pool:
        lines = [
            x for r in pool.map(lambda s: run_one(s, a.logs, a.each, stop_at), scripts) for x in r
        ]
    lines.append(f"battery: {len(scripts)} scripts in {time.monotonic() - t0:.0f} s")
    (a.logs / "battery.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
