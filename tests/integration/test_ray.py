"""Campaigns on a Ray cluster (a local one here): the same verdicts as the local pool, a lost
actor's program re-queued once and every seed recorded once, a killed driver resumed."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time

import pytest

ray = pytest.importorskip("ray", reason="Ray is an optional extra: pip install 'torchsmith[ray]'")

from torchsmith.campaign.config import CampaignConfig  # noqa: E402
from torchsmith.campaign.loop import Campaign  # noqa: E402
from torchsmith.campaign.store import Store  # noqa: E402
from torchsmith.options import CheckOptions  # noqa: E402

RELU = {"inductor.cpp.inject_relu_bug_TESTING_ONLY": "accuracy"}
GEN = {"ops": "relu,add,mul,sin", "max_nodes": 3}


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def _verdicts(folder) -> dict[int, tuple]:
    with Store(folder, readonly=True) as s:
        return {r["seed"]: (r["verdict"], r["stage"], r["signature"]) for r in s.rows()}


def test_ray_gives_the_local_pool_s_verdicts_for_the_same_seeds(tmp_path, cluster):
    opts = CheckOptions(config=RELU, timeout=180, localize=False)
    common = dict(count=10, jobs=2, gen_options=GEN, options=opts)
    Campaign(CampaignConfig(out=tmp_path / "local", **common)).run()
    summary = Campaign(CampaignConfig(out=tmp_path / "ray", ray="auto", **common)).run()
    local, remote = _verdicts(tmp_path / "local"), _verdicts(tmp_path / "ray")
    assert sorted(remote) == list(range(10)) and remote == local
    assert any(v[0] == "pass" for v in remote.values())  # and the others were not
    assert any(v[0] == "mismatch" for v in remote.values())  # the planted fault was found
    assert summary["nodes"] and summary["nodes"][0]["node"]  # rows know their node


class Events:
    def __init__(self):
        self.events: list[tuple[str, str]] = []

    def update(self, stats):
        pass

    def event(self, kind, text):
        self.events.append((kind, text))


def test_a_lost_actor_s_program_is_re_queued_once_and_every_seed_recorded_once(tmp_path, cluster):
    events = Events()
    cfg = CampaignConfig(out=tmp_path / "c", count=14, jobs=2, gen_options=GEN, ray="auto",
                         options=CheckOptions(backend="aot_eager", timeout=120))  # fmt: skip
    camp = Campaign(cfg, progress=events)
    done: dict = {}
    runner = threading.Thread(target=lambda: done.update(camp.run()))
    runner.start()
    db = cfg.out / "campaign.db"
    deadline = time.time() + 600
    while time.time() < deadline and _rows(db) < 4:
        time.sleep(0.2)
    assert camp.pool is not None
    victim = camp.pool.slots[0].worker
    ray.kill(victim.actor, no_restart=True)  # mid-job or between jobs: the actor is gone
    runner.join(600)
    assert done["state"] == "finished", done
    with Store(cfg.out, readonly=True) as s:
        rows = s.rows()
    seeds = [r["seed"] for r in rows]
    assert sorted(seeds) == list(range(14))  # each seed once (the primary key), none lost
    assert all(r["status"] == "checked" for r in rows), [r["error"] for r in rows]
    assert any("re-queued" in text for _, text in events.events), events.events
    assert victim.actors >= 2  # the slot got a new actor


def _rows(db) -> int:
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
            return con.execute("SELECT COUNT(*) FROM programs").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_a_killed_driver_resumes_with_nothing_lost_or_duplicated(tmp_path):
    out = tmp_path / "c"
    base = [
        sys.executable,
        "-m",
        "torchsmith",
        "fuzz",
        "--progress-interval",
        "3600",
        "--no-reduce",
    ]
    first = base + ["--ray", "local", "--jobs", "2", "--count", "12", "--out", str(out),
                    "--backend", "aot_eager", "--timeout", "120",
                    "--generator", "graph", "--gen-option", "max_nodes=3",
                    "--pack", "1"]  # fmt: skip
    proc = subprocess.Popen(first, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 600
    while proc.poll() is None and _rows(out / "campaign.db") < 5 and time.time() < deadline:
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    again = subprocess.run(base + ["--resume", str(out)], capture_output=True, text=True,
                           timeout=900)  # fmt: skip
    assert again.returncode in (0, 1), again.stderr[-2000:]
    with Store(out, readonly=True) as s:
        seeds = [r["seed"] for r in s.rows()]
    assert sorted(seeds) == list(range(12))
