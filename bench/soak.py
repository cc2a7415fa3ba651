"""The soak: a campaign that must lose nothing through planted faults and repeated SIGKILLs.

A campaign of ``--count`` small programs (``SoakGenerator``), about 5% of them planted faults of
every kind (a segfault, ``abort()``, ``os._exit``, a hang past the timeout, runaway memory past
the cap, a child process left behind, a flood of output), runs as ``torchsmith fuzz --jobs 2``;
the fuzz process is killed with SIGKILL when the store holds a seeded random number of rows,
``--kills`` times, and resumed with ``--resume`` each time. At the end it prints:

* programs recorded (must equal the count), duplicated (0: a seed is the primary key; finding
  folders are checked against rows too), errors (programs torchsmith failed to check: 0);
* each planted fault's verdict against the expected one;
* worker restarts, tool deaths (a fuzz process that ended other than by our kills: 0),
  processes left on the machine afterwards (workers, the planted children: 0), wall time.

    python bench/soak.py [--count 1000] [--kills 3] [--seed 7] [--backend inductor]

The generator is importable as ``soak:SoakGenerator`` (this folder on the import path).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from torchsmith.program.format import Program  # noqa: E402

#: A marker every planted child process carries, so leftovers can be counted.
MARK = "987654.321"

CLEAN = """import torch


def fn(x, y):
    return torch.relu(x) * {k} + y.sum()


def get_inputs():
    return [torch.randn(4, 4), torch.randn(3)]
"""

FAULTS: dict[str, tuple[str, str]] = {
    # kind: (forward body, expected verdict)
    "segfault": ("import ctypes\n    ctypes.string_at(0)", "died"),
    "abort": ("import os\n    os.abort()", "died"),
    "exit": ("import os\n    os._exit(3)", "died"),
    "hang": ("import time\n    time.sleep(10000)", "timeout"),
    "memory": (
        "hoard = []\n    while True:\n        hoard.append(torch.ones(32, 1024, 1024))",
        "limit",
    ),  # fmt: skip
    "child": (f"import subprocess\n    subprocess.Popen(['sleep', '{MARK}'])", "pass"),
    "output": (
        "import sys\n    for _ in range(20000):\n        print('x' * 500)\n"
        "        sys.stderr.write('y' * 500 + '\\n')",
        "pass",
    ),  # fmt: skip
}
FAULT_SOURCE = """import torch


def fn(x):
    {body}
    return x + 1


def get_inputs():
    return [torch.randn(4)]
"""


def plan(seed: int) -> str | None:
    """The fault planted at ``seed`` (1 in 20, every kind in turn: any 140 consecutive seeds
    hold each kind once), or None for a clean program."""
    if seed % 20 != 13:
        return None
    kinds = sorted(FAULTS)
    return kinds[(seed // 20) % len(kinds)]


class SoakGenerator:
    """Small programs, about 5% planted faults of every kind; same seed, same program."""

    name = "soak"

    def __init__(self, **options: Any) -> None:
        self.options = options

    def generate(self, seed: int, ctx: Any) -> Program:
        kind = plan(seed)
        if kind is None:
            source = CLEAN.format(k=seed % 7 + 1)
        else:
            source = FAULT_SOURCE.format(body=FAULTS[kind][0])
        return Program(source=source, model="fn", name=f"soak_{seed}", origin="generated")


def rows(db: Path) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as con:
            return int(con.execute("SELECT COUNT(*) FROM programs").fetchone()[0])
    except sqlite3.Error:
        return 0


def leftovers(out: Path) -> list[str]:
    """Processes this campaign left: anything whose stderr still points into its folder (its
    workers log there, and a planted child inherits the log), found through ``/proc``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            target = os.readlink(entry / "fd" / "2")
            args = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()[:100]
        except OSError:
            continue
        if target.startswith(str(out)):
            found.append(f"{entry.name} {args}")
    return found


def run(args: argparse.Namespace) -> dict[str, Any]:
    out = Path(args.out)
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"{out} is not empty")
    rng = random.Random(args.seed)
    kills = sorted(rng.sample(range(args.count // 10, args.count * 9 // 10), args.kills))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parent), str(ROOT / "src")])
    base = [
        sys.executable,
        "-m",
        "torchsmith",
        "fuzz",
        "--progress-interval",
        "3600",
        "--no-reduce",
    ]
    first = base + [
        "--out", str(out), "--count", str(args.count), "--jobs", str(args.jobs),
        "--generator", "soak:SoakGenerator", "--seed", str(args.seed),
        "--backend", args.backend, "--timeout", str(args.timeout),
        "--memory-mb", str(args.memory_mb), "--no-localize",
    ]  # fmt: skip
    t0 = time.time()
    deaths: list[str] = []
    cmd = first
    for target in [*kills, None]:
        proc = subprocess.Popen(
            cmd, env=env, stdout=subprocess.DEVNULL, stderr=open(out.parent / "soak.log", "ab")
            if out.parent.exists() else subprocess.DEVNULL,
        )  # fmt: skip
        killed = False
        while proc.poll() is None:
            time.sleep(0.5)
            if target is not None and rows(out / "campaign.db") >= target:
                proc.send_signal(signal.SIGKILL)
                killed = True
                proc.wait()
        if not killed and proc.returncode not in (0, 1):
            deaths.append(f"fuzz exited {proc.returncode}")
        cmd = base + ["--resume", str(out)]
        if target is None:
            break
    wall = time.time() - t0
    time.sleep(2.0)  # workers of the last kill notice their parent is gone within a second
    return report(out, args.count, deaths, leftovers(out), wall, kills)


def report(out: Path, count: int, deaths: list[str], left: list[str], wall: float,
           kills: list[int]) -> dict[str, Any]:  # fmt: skip
    con = sqlite3.connect(f"file:{out / 'campaign.db'}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    recorded = con.execute("SELECT * FROM programs").fetchall()
    seeds = [r["seed"] for r in recorded]
    findings = {r["finding"] for r in recorded if r["finding"]}
    folders = (
        {p.name for p in (out / "findings").iterdir()} if (out / "findings").exists() else set()
    )
    params = {r["key"]: json.loads(r["value"]) for r in con.execute("SELECT * FROM campaign")}
    start = int(params.get("seed", 0))
    faults: dict[str, dict[str, int]] = {}
    wrong = []
    for r in recorded:
        kind = plan(r["seed"])
        if kind is None:
            if r["verdict"] != "pass":
                wrong.append(f"seed {r['seed']} (clean): {r['verdict']} {r['reason']}")
            continue
        want = FAULTS[kind][1]
        got = r["verdict"] or r["status"]
        faults.setdefault(kind, {"planted": 0, "right": 0})["planted"] += 1
        if got == want:
            faults[kind]["right"] += 1
        else:
            wrong.append(f"seed {r['seed']} ({kind}): want {want}, got {got}: {r['reason']}")
    summary = {
        "programs recorded": f"{len(set(seeds))}/{count}",
        "duplicated": len(seeds) - len(set(seeds)),
        "missing seeds": sorted(set(range(start, start + count)) - set(seeds))[:20],
        "finding folders without a row": sorted(folders - findings)[:20],
        "rows whose folder is missing": sorted(findings - folders)[:20],
        "errors": sum(r["status"] == "error" for r in recorded),
        "planted faults (right/planted)": {
            k: f"{v['right']}/{v['planted']}" for k, v in sorted(faults.items())
        },  # fmt: skip
        "wrong verdicts": wrong[:20],
        "worker restarts": sum(int(r["worker_deaths"] or 0) for r in recorded),
        "SIGKILLs at rows": kills,
        "tool deaths": deaths,
        "processes left": left,
        "wall s": round(wall, 1),
    }
    return summary


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--kills", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--backend", default="inductor")
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--memory-mb", type=int, default=2048)
    ap.add_argument("--out", default=None, help="Campaign folder (default: a new temp folder).")
    args = ap.parse_args(argv)
    if args.out is None:
        import tempfile

        args.out = str(Path(tempfile.mkdtemp(prefix="torchsmith-soak-")) / "campaign")
    summary = run(args)
    print(json.dumps(summary, indent=1))
    ok = (
        summary["programs recorded"] == f"{args.count}/{args.count}"
        and summary["duplicated"] == 0
        and not summary["wrong verdicts"]
        and not summary["tool deaths"]
        and not summary["processes left"]
        and summary["errors"] == 0
        and not summary["finding folders without a row"]
        and not summary["rows whose folder is missing"]
    )
    print("SOAK:", "ok" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
