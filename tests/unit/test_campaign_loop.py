"""The fuzz loop's bookkeeping with a stand-in checker: no worker ever starts (fast)."""

import pytest

import torchsmith.campaign.loop as camp
from torchsmith.campaign.config import CampaignConfig, CampaignError
from torchsmith.campaign.loop import Campaign
from torchsmith.campaign.store import Store
from torchsmith.check import CheckError
from torchsmith.dedup import signature
from torchsmith.finding import read_finding, write_finding
from torchsmith.program.format import Program
from torchsmith.program.load import program_from_source
from torchsmith.verdict import CheckResult, Phase, Stage, Verdict

SRC = """import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return {body}


def get_inputs():
    return [torch.randn(4)]
"""
BODIES = ["torch.relu(x).sin()", "x.cos()", "torch.relu(x) * 2", "x.tan()", "torch.relu(x).exp()"]


class Gen:
    name = "fake"

    def generate(self, seed, ctx):
        if seed == 5:
            return None
        return program_from_source(SRC.format(body=BODIES[seed % 5]), name=f"p{seed}")


def fake_check(program: Program, options, worker) -> CheckResult:
    bug = "relu" in program.source
    return CheckResult(
        Verdict.MISMATCH if bug else Verdict.PASS,
        Phase.COMPARE if bug else None,
        stage=Stage.INDUCTOR if bug else None,
        program=program.name,
        digest=program.digest,
        options=options.to_dict(),
        timings={"compiled": 0.5, "eager": 0.1},
    )


def fake_reduce(finding, worker, *, options=None, time_budget=120.0):
    prog = program_from_source(SRC.format(body="torch.relu(x)"), name=finding.program.name + "-r")
    res = CheckResult(Verdict.MISMATCH, Phase.COMPARE, stage=Stage.INDUCTOR)
    return write_finding(
        finding.folder.parent,
        prog,
        res,
        signature=signature(res, prog),
        extra={"reduced_from": finding.id},
    )


class Events:
    def __init__(self):
        self.events, self.updates = [], 0

    def update(self, stats):
        self.updates += 1

    def event(self, kind, text):
        self.events.append((kind, text))


def test_loop_dedups_reduces_new_bugs_once_and_merges_refined_signatures(tmp_path, monkeypatch):
    monkeypatch.setattr(camp, "check_program", fake_check)
    calls = []

    def reducer(f, w, **kw):
        calls.append(f.id)
        return fake_reduce(f, w, **kw)

    cfg = CampaignConfig(out=tmp_path, count=8, jobs=2, reduce=True)
    events = Events()
    summary = Campaign(cfg, generator=Gen(), progress=events, reducer=reducer).run()
    assert summary["state"] == "finished" and summary["programs"] == 8
    # seeds 0, 2, 4 (relu with sin, mul, exp: three op sets) and 7 (= 2 again); 5 yields nothing
    assert summary["findings"] == 4 and len(calls) == 3
    (bug,) = summary["bug_list"]
    assert bug["readable"] == "wrong-value|inductor|relu" and bug["count"] == 4
    assert len(bug["raw_signatures"]) == 3 and bug["reduced_finding"]
    assert read_finding(tmp_path / "findings" / bug["reduced_finding"]).meta["reduced_from"]
    assert sum(k == "bug" for k, _ in events.events) == 3 and events.updates > 0
    with Store(tmp_path, readonly=True) as s:
        rows = {r["seed"]: r for r in s.rows()}
    assert rows[5]["status"] == "no-program" and rows[1]["verdict"] == "pass"
    assert rows[0]["work_s"] == 0.0 and rows[0]["timings"] == {"compiled": 0.5, "eager": 0.1}

    # resuming a finished campaign checks nothing and keeps every finding folder
    before = sorted(p.name for p in (tmp_path / "findings").iterdir())
    again = Campaign(cfg, generator=Gen(), resume=True).run()
    assert again["programs"] == 8 and again["bug_list"] == summary["bug_list"]
    assert sorted(p.name for p in (tmp_path / "findings").iterdir()) == before
    assert len(calls) == 3


def test_known_bugs_are_stored_but_marked(tmp_path, monkeypatch):
    monkeypatch.setattr(camp, "check_program", fake_check)
    prog = Gen().generate(0, None)
    res = fake_check(prog, CampaignConfig(out=tmp_path).options, None)
    known = tmp_path / "known.txt"
    known.write_text(signature(res, prog) + "\n")
    cfg = CampaignConfig(out=tmp_path / "c", count=3, known_file=str(known))
    summary = Campaign(cfg, generator=Gen()).run()
    assert summary["bugs"] == 2 and summary["known_bugs"] == 1
    assert [b["known"] for b in summary["bug_list"]].count(True) == 1


def test_a_campaign_whose_programs_all_fail_inside_torchsmith_stops(tmp_path, monkeypatch):
    def broken(program, options, worker):
        raise CheckError("torchsmith failed inside the worker: KeyError: 'x'")

    monkeypatch.setattr(camp, "check_program", broken)
    cfg = CampaignConfig(out=tmp_path, count=50)
    with pytest.raises(CampaignError, match="every program fails"):
        Campaign(cfg, generator=Gen()).run()
    with Store(tmp_path, readonly=True) as s:
        assert s.params()["state"] == "failed"
        assert 5 <= s.counts()["errors"] < 50


def test_time_budget_already_spent_starts_nothing_and_says_stopped(tmp_path, monkeypatch):
    monkeypatch.setattr(camp, "check_program", fake_check)
    cfg = CampaignConfig(out=tmp_path, count=4, time_budget=0.0)
    summary = Campaign(cfg, generator=Gen()).run()
    assert summary["state"] == "stopped" and summary["programs"] == 0
    cfg.time_budget = None  # resuming with more time (here: none) goes on and finishes
    assert Campaign(cfg, generator=Gen(), resume=True).run()["state"] == "finished"


def test_packing_generates_each_seed_once_even_when_it_cannot_pack(tmp_path, monkeypatch):
    # The fake programs are not packable (not generated by torchsmith): every packing round
    # hands them to the loop to check alone. Generators can be costly (eager validity checks
    # in the worker), so a seed must not be generated a second time for that.
    monkeypatch.setattr(camp, "check_program", fake_check)
    calls = []

    class Counting(Gen):
        def generate(self, seed, ctx):
            calls.append(seed)
            return super().generate(seed, ctx)

    cfg = CampaignConfig(out=tmp_path, count=10, pack=4)
    summary = Campaign(cfg, generator=Counting()).run()
    assert summary["programs"] == 10 and sorted(calls) == list(range(10))
    with Store(tmp_path, readonly=True) as s:
        rows = {r["seed"]: r for r in s.rows()}
    assert rows[5]["status"] == "no-program" and rows[0]["verdict"] == "mismatch"


def test_the_background_reducer_survives_faults_and_drains_or_drops_its_queue():
    import threading
    import types

    from torchsmith.campaign.reducer import BackgroundReducer

    gate = threading.Event()
    seen, events = [], []

    def reduce(f, w):
        gate.wait(5)
        seen.append(f)
        if f == "boom":
            raise RuntimeError("reducer fault")
        return None if f == "none" else types.SimpleNamespace(folder=f)

    r = BackgroundReducer(
        reduce,
        lambda bug, red: f"new-{bug}",
        lambda fid: fid,
        lambda k, t: events.append(k),
        lambda: object(),
    )
    for fid in ("boom", "none", "ok"):
        r.submit(fid, f"sig-{fid}")
    gate.set()
    r.close()
    assert seen == ["boom", "none", "ok"] and r.done == [("sig-ok", "new-sig-ok")]
    assert events == ["error", "reduced", "reduced"]

    gate.clear()
    r2 = BackgroundReducer(reduce, lambda b, x: b, lambda f: f, lambda k, t: None, object)
    r2.submit("a", "s")
    r2.submit("b", "s2")
    threading.Timer(0.2, gate.set).start()
    r2.close(drop_queued=True)  # "a" may be under way; "b" is skipped
    assert "b" not in seen[3:]


def test_the_campaigns_reducer_leaves_declared_settings_to_each_candidate(tmp_path, monkeypatch):
    # bf16 campaign: an attention program declaring check_options = {"grad": True} was reduced
    # under the finding's options (grad on), so a candidate that dropped the declaration still
    # failed, and the reduced program passed when checked alone: a repro that did not reproduce.
    from torchsmith.check import effective_options

    def declared_check(program, options, worker):  # as check_program: declarations applied
        return fake_check(program, effective_options(program, options), worker)

    monkeypatch.setattr(camp, "check_program", declared_check)
    seen = []

    class GradGen(Gen):
        def generate(self, seed, ctx):
            body = "torch.relu(x).sin()" if seed == 0 else "x.cos()"
            src = SRC.format(body=body) + "\ncheck_options = {'grad': True}\n"
            return program_from_source(src, name=f"g{seed}")

    def reducer(f, w, **kw):
        seen.append((f.options.grad, kw["options"].grad))
        return None

    cfg = CampaignConfig(out=tmp_path, count=2, jobs=1, reduce=True)
    Campaign(cfg, generator=GradGen(), progress=Events(), reducer=reducer).run()
    assert seen == [(True, False)]  # found with gradients; reduced with each candidate's own


def test_a_stopped_campaign_reduces_for_a_quarter_of_its_time_budget_at_most():
    """``fuzz --time 20m`` had queued 47 bugs and reduced for 50 minutes past its 20: queued
    reductions that have not started ``drain_for`` seconds after ``close`` are skipped, kept
    unreduced and reported in one event; a ``--count`` campaign drains them all."""
    import time as _time
    from pathlib import Path

    from torchsmith.campaign.config import CampaignConfig
    from torchsmith.campaign.reducer import BackgroundReducer, drain_seconds

    assert drain_seconds(CampaignConfig(out=Path("x"), time_budget=1200.0)) == 300.0
    assert (
        drain_seconds(CampaignConfig(out=Path("x"), time_budget=60.0, reduce_budget=120.0)) == 120
    )
    assert drain_seconds(CampaignConfig(out=Path("x"), count=10)) is None
    seen, events = [], []

    def reduce(finding, worker):
        seen.append(finding)
        _time.sleep(0.3)

    r = BackgroundReducer(
        reduce, lambda b, x: b, lambda f: f, lambda k, t: events.append(t), object
    )
    for i in range(6):
        r.submit(f"f{i}", f"sig-{i}")
    r.close(drain_for=0.5)
    assert len(seen) <= 3 and len(seen) + len(r.skipped) == 6, (seen, r.skipped)
    assert r.skipped == [f"sig-{i}" for i in range(len(seen), 6)]
    assert events[-1].startswith(f"{len(r.skipped)} bug(s) left unreduced")
