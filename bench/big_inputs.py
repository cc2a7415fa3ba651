"""What checking a program costs as its inputs grow, next to what the program itself costs.

For LayerNorm programs with 10^4 .. 3*10^7 input elements (the size of the CPU Welford repro,
pytorch#143182) it runs, in one warm worker and side by side:

* the program alone: one eager run and one compiled run (what a user pays), and
* ``check``: eager twice, float64, compiled, the comparison (and the probe if a candidate),

and prints wall seconds and peak resident memory above the idle worker for both, their ratio,
and where ``check`` spends its time (its per-phase timings). A check should cost a small
multiple of the program, whatever the size.

    python bench/big_inputs.py [--sizes 1e4 1e6 3e7] [--python PY]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from torchsmith.check import check_program  # noqa: E402
from torchsmith.execute.protocol import Request  # noqa: E402
from torchsmith.execute.worker import Worker, rss_mb  # noqa: E402
from torchsmith.options import CheckOptions  # noqa: E402
from torchsmith.program.format import Program  # noqa: E402

SOURCE = """import torch


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = torch.nn.LayerNorm({cols})

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn({rows}, {cols})]
"""
JOB = "big_inputs:program_alone"


def program_alone(program: Any, options: Any, emit: Any) -> dict[str, Any]:
    """Worker job: the program's own cost, one eager and one compiled run (no judging)."""
    import torch

    from torchsmith.oracle import runtime

    loaded = runtime.load(program, options.seed)
    model = runtime.build_model(loaded, options.seed, "cpu", None)
    t0 = time.perf_counter()
    with torch.no_grad():
        model(*loaded.inputs)
    t1 = time.perf_counter()
    torch._dynamo.reset()
    with torch.no_grad():
        torch.compile(model)(*loaded.inputs)
    return {"eager_s": t1 - t0, "compiled_s": time.perf_counter() - t1}


def program(n: int) -> Program:
    cols = 1024 if n >= 1024 else n
    return Program(source=SOURCE.format(rows=max(1, n // cols), cols=cols), name=f"ln_{n}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="*", type=float, default=[1e4, 1e5, 1e6, 1e7, 3e7])
    ap.add_argument("--python", default=None)
    ap.add_argument("--memory-mb", type=int, default=16384)
    args = ap.parse_args(argv)
    options = CheckOptions(timeout=1200, memory_mb=args.memory_mb, localize=False)
    print(f"{'elements':>10} {'alone s':>8} {'check s':>8} {'x':>5} {'alone MB':>9} {'check MB':>9}"
          f" {'x':>5}  check phases (s)")  # fmt: skip
    with Worker(memory_mb=args.memory_mb, python=args.python) as worker:
        worker.run(Request.ping(), 300)
        for size in args.sizes:
            prog = program(int(size))
            worker.close()  # each size starts from an idle worker: peaks are comparable
            worker.run(Request.ping(), 300)
            assert worker.proc is not None
            idle = rss_mb(worker.proc.pid)
            t0 = time.perf_counter()
            alone = worker.run(Request.call(JOB, prog, options), 1200)
            alone_s = time.perf_counter() - t0
            if alone.status != "result":
                print(f"{int(size):>10} program alone: {alone.failure(prog.name)}")
                continue
            alone_mb = alone.peak_rss_mb - idle
            worker.close()
            worker.run(Request.ping(), 300)
            idle = rss_mb(worker.proc.pid)
            t0 = time.perf_counter()
            res = check_program(prog, options, worker)
            check_s = time.perf_counter() - t0
            check_mb = max(0.0, worker.last_peak_mb - idle)
            phases = {k: v for k, v in res.timings.items() if k != "wall"}
            print(
                f"{int(size):>10} {alone_s:8.2f} {check_s:8.2f} {check_s / alone_s:5.1f}"
                f" {alone_mb:9.0f} {check_mb:9.0f} {check_mb / max(alone_mb, 1):5.1f}  "
                + " ".join(f"{k}={v:.2f}" for k, v in phases.items())
                + f"  [{res.verdict.value}]",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
