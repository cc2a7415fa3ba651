"""Ray's cost on one machine, and where the single-writer store stops scaling.

1. The same campaign (``--count`` programs, ``--jobs`` workers, the same seeds) with the local
   pool and with Ray actors on a local cluster, one after the other: programs/min of each and
   Ray's overhead (goal: at most 10 %). Each side gets its own empty Inductor cache
   (``TORCHINDUCTOR_CACHE_DIR``, set before its workers or the Ray cluster start), so the second
   side does not reuse the first side's compiled kernels for the same seeds. The local cluster
   is started before the Ray side's clock starts, as a cluster is up before a campaign; its
   start-up time is printed apart. Actor start-up is in the rate.
2. The store alone: ``--rows`` program rows recorded through the campaign's one
   :class:`~torchsmith.campaign.writer.Writer` thread as fast as it takes them: sustained rows/s, and at
   what cluster size that many rows/s would be needed (``nodes = rows/s / programs/min/node *
   60``, with this machine's programs/min per job as a node's).

    python bench/ray_bench.py [--count 40] [--jobs 2] [--rows 20000]

(Not ``bench/ray.py``: run as a script, a file of that name would shadow the ``ray`` package.)
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from torchsmith.campaign.config import CampaignConfig  # noqa: E402
from torchsmith.campaign.loop import Campaign  # noqa: E402
from torchsmith.campaign.store import DB_NAME, ProgramRow, Store  # noqa: E402
from torchsmith.campaign.writer import Writer  # noqa: E402
from torchsmith.execute import ray_pool  # noqa: E402
from torchsmith.options import CheckOptions  # noqa: E402


def campaign_rate(out: Path, count: int, jobs: int, ray: str | None) -> float:
    # Workers (local subprocesses, or Ray's raylet started by ray.init) inherit this.
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(out.parent / f"cache-{out.name}")
    cfg = CampaignConfig(
        out=out, count=count, jobs=jobs, ray=ray, gen_options={"max_nodes": 5},
        options=CheckOptions(timeout=300, localize=False),
    )  # fmt: skip
    if ray:  # the cluster is up before a campaign (``ray start``); its start is timed apart
        t_init = time.monotonic()
        ray_pool.init(ray, jobs)
        print(f"Ray cluster start: {time.monotonic() - t_init:.1f} s (not in the rate)")
    t0 = time.monotonic()
    summary = Campaign(cfg).run()
    wall = time.monotonic() - t0
    assert summary["programs"] == count, summary
    return count / (wall / 60)


def store_rate(folder: Path, rows: int) -> float:
    writer = Writer(folder / DB_NAME)
    writer.call(lambda s: s.set_params(seed=0, count=rows))
    t0 = time.monotonic()
    for seed in range(rows):
        writer.call(
            Store.record,
            ProgramRow(seed=seed, generator="graph", verdict="pass", reason="ok",
                       timings={"eager": 0.01, "compiled": 1.2}, options={"backend": "inductor"}),
        )  # fmt: skip
    wall = time.monotonic() - t0
    writer.close()
    return rows / wall


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--rows", type=int, default=20000)
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="torchsmith-ray-bench-"))
    local = campaign_rate(tmp / "local", args.count, args.jobs, None)
    remote = campaign_rate(tmp / "ray", args.count, args.jobs, "local")
    print(f"local pool  {local:7.1f} programs/min ({args.jobs} jobs, {args.count} programs)")
    print(f"Ray actors  {remote:7.1f} programs/min (the same seeds, a local cluster)")
    print(f"Ray overhead {100 * (1 - remote / local):+.1f} % of the local rate")
    rate = store_rate(tmp / "store", args.rows)
    per_node = local / args.jobs * 60  # programs per hour per core: one core ~ one node's job
    print(f"store: {rate:,.0f} rows/s sustained through the one writer ({args.rows} rows)")
    print(f"  a node checks ~{per_node:,.0f} programs/h per job here; the writer saturates at"
          f" ~{rate * 3600 / per_node:,.0f} jobs (e.g. {rate * 3600 / per_node / 64:,.0f}"
          " 64-core nodes)")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
