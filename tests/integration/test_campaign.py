"""Campaigns end to end: crashy programs, the injected relu bug, SIGKILL and --resume."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from torchsmith.campaign.config import CampaignConfig
from torchsmith.campaign.loop import Campaign
from torchsmith.campaign.store import Store
from torchsmith.campaign.summary import summarize
from torchsmith.options import CheckOptions

from .crashy_generator import CrashyGenerator

RELU_BUG = "inductor.cpp.inject_relu_bug_TESTING_ONLY"
ROOT = Path(__file__).parent.parent.parent
RELU_GEN = {"ops": "relu,add,sin,mul", "max_nodes": 4, "shapes": "random"}


def test_segfault_hang_and_runaway_allocation_are_recorded_and_the_rest_checked(tmp_path):
    cfg = CampaignConfig(
        out=tmp_path / "c",
        count=8,
        jobs=2,
        generator="crashy",
        # 20 s: on a machine loaded several times over, the runaway allocation needs up to ~10 s
        # to pass the 2 GiB cap (page faults for every byte), and must reach it before the timeout
        options=CheckOptions(backend="aot_eager", timeout=20, memory_mb=2048),
    )
    summary = Campaign(cfg, generator=CrashyGenerator()).run()
    with Store(cfg.out, readonly=True) as store:
        rows = {r["seed"]: r for r in store.rows()}
    assert sorted(rows) == list(range(8))
    assert (rows[1]["verdict"], rows[1]["phase"], rows[1]["category"]) == ("died", "eager", "fault")
    assert rows[1]["readable"].startswith("segfault|eager|SIGSEGV||")  # + faulthandler frame
    assert (rows[3]["verdict"], rows[3]["category"]) == ("timeout", "fault"), rows[3]
    assert rows[4]["verdict"] == "limit" and rows[4]["readable"] == "oom|eager|memory||", rows[4]
    assert rows[6]["status"] == "no-program"
    for seed in (0, 2, 5, 7):
        assert rows[seed]["verdict"] == "pass", rows[seed]
    assert sum(r["worker_deaths"] for r in rows.values()) == 3
    for seed in (1, 3, 4):  # each fault has its folder, named by its row
        assert (cfg.out / "findings" / rows[seed]["finding"] / "meta.json").exists()
    assert summary["state"] == "finished" and summary["bugs"] == 0
    assert summary["faults"] == 3 and len(summary["fault_list"]) == 3
    assert summary["worker_deaths"] == 3 and summary["valid"] == 4


@pytest.mark.parametrize("mode", ["runtime_error", "compile_error"])
def test_injected_relu_bug_from_different_programs_is_one_signature(tmp_path, mode):
    cfg = CampaignConfig(
        out=tmp_path / mode,
        count=5,
        gen_options=RELU_GEN,
        options=CheckOptions(config={RELU_BUG: mode}, timeout=120),
    )
    summary = Campaign(cfg).run()
    with Store(cfg.out, readonly=True) as store:
        bugs = [r for r in store.rows(category="bug")]
        assert len({r["digest"] for r in bugs}) >= 2, "the seeds should reach the bug twice"
        assert len({r["signature"] for r in bugs}) == 1, {r["readable"] for r in bugs}
        assert {r["stage"] for r in bugs} == {"inductor"}
        (bug,) = summary["bug_list"]
        assert bug["count"] == len(bugs) and summary["bugs"] == 1
        smallest = min((r["lines"], r["ops"]) for r in bugs)
        assert tuple(bug["smallest_size"]) == smallest
        assert summarize(store, known={bug["signature"]})["known_bugs"] == 1


def _cli(*args: str, **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "torchsmith", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        **kw,
    )


def _rows(folder: Path) -> list[tuple]:
    with Store(folder, readonly=True) as s:
        return [
            (r["seed"], r["digest"], r["verdict"], r["stage"], r["signature"], r["finding"])
            for r in s.rows()
        ]


def _children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            kids.append(int(stat.parent.name))
    return kids


def test_sigkill_then_resume_matches_an_uninterrupted_run(tmp_path):
    # --pack 1: rows land one program at a time, so the kill falls between two of them
    # --no-localize: the ladder is not what is tested here (it tripled the check time)
    common = ["--count", "6", "--timeout", "120", "--config", f"{RELU_BUG}=runtime_error",
              "--generator", "graph", "--pack", "1", "--no-reduce", "--no-localize"]  # fmt: skip
    common += [f"--gen-option={k}={v}" for k, v in RELU_GEN.items()]
    ref = _cli("fuzz", *common, "--out", str(tmp_path / "ref"), "--json")
    out, err = ref.communicate(timeout=300)
    assert ref.returncode == 1, err  # 1: bugs found
    ref_summary = json.loads(out)
    assert ref_summary["programs"] == 6 and ref_summary["bugs"] == 1

    victim = tmp_path / "victim"
    proc = _cli("fuzz", *common, "--out", str(victim), "--jobs", "2")
    deadline = time.monotonic() + 240
    rows = 0
    while rows < 2 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
        try:
            db = sqlite3.connect(f"file:{victim / 'campaign.db'}?mode=ro", uri=True)
            rows = db.execute("SELECT COUNT(*) FROM programs").fetchone()[0]
            db.close()
        except sqlite3.Error:
            pass
    assert proc.poll() is None and 2 <= rows < 6, (rows, proc.stderr.read() if proc.stderr else "")
    workers = _children(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate()
    t0 = time.monotonic()  # orphaned workers notice and exit on their own
    while any(Path(f"/proc/{w}").exists() for w in workers) and time.monotonic() - t0 < 15:
        time.sleep(0.2)
    assert not [w for w in workers if Path(f"/proc/{w}/stat").exists() and
                Path(f"/proc/{w}/stat").read_text().split()[2] != "Z"]  # fmt: skip

    status = _cli("status", str(victim), "--json")
    s_out, s_err = status.communicate(timeout=60)
    assert status.returncode == 0, s_err
    assert json.loads(s_out)["state"] == "killed"

    again = _cli("fuzz", "--resume", str(victim), "--seed", "3")  # fixed options: refused
    assert again.wait(timeout=60) == 2 and "--seed" in again.stderr.read()

    resumed = _cli("fuzz", "--resume", str(victim), "--json")
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 1, err
    summary = json.loads(out)
    assert summary["state"] == "finished" and summary["programs"] == 6
    with Store(victim, readonly=True) as st:
        errors = [
            (r["seed"], r["status"], r["error"]) for r in st.rows() if r["status"] != "checked"
        ]
    assert not errors
    assert _rows(victim) == _rows(tmp_path / "ref")
    names = sorted(p.name for p in (victim / "findings").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "ref" / "findings").iterdir())
    assert [(b["signature"], b["count"]) for b in summary["bug_list"]] == [
        (b["signature"], b["count"]) for b in ref_summary["bug_list"]
    ]
