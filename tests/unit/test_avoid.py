"""Known-cause avoidance (campaign/avoid.py): its rules, its file, and a campaign using it."""

import dataclasses
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torchsmith.campaign.loop as camp
from torchsmith.campaign.avoid import AVOID_FILE, FLOOR, Avoidance, features
from torchsmith.campaign.config import CampaignConfig
from torchsmith.campaign.loop import Campaign
from torchsmith.campaign.store import Store
from torchsmith.program.load import program_from_source

from .test_campaign_loop import fake_check

FEATS = ["hop=scan", "grad=True", "grad=False", "op:sin", "op:cos"]
histories = st.lists(
    st.tuples(st.lists(st.sampled_from(FEATS), unique=True, max_size=4), st.booleans()),
    max_size=60,
)


@settings(max_examples=80, deadline=None)
@given(histories, st.lists(st.sampled_from([*FEATS, "never=seen"]), unique=True, max_size=4))
def test_acceptance_is_clipped_and_unseen_or_ordinary_features_never_lower_it(history, program):
    av = Avoidance()
    for feats, repeat in history:
        av.record(0, feats, repeat)
    p, why = av.acceptance(program)
    assert FLOOR <= p <= 1.0
    assert av.acceptance(["never=seen"]) == (1.0, None)
    if not any(r for _, r in history):
        assert p == 1.0 and why is None
    if why is not None:  # the feature that lowered it repeats more often than the campaign
        rate = av.repeated[why] / av.checked[why]
        assert rate > av.repeats / av.total


def test_a_feature_that_keeps_repeating_is_avoided_and_one_that_does_not_is_kept():
    av = Avoidance()
    for i in range(30):
        av.record(i, ["hop=scan", "grad=True", "hop=scan & grad=True"], repeat=True)
        av.record(i, ["hop=cond", "grad=True", "hop=cond & grad=True"], repeat=False)
        av.record(i, ["hop=map", "grad=False", "hop=map & grad=False"], repeat=False)
    p, why = av.acceptance(["hop=scan", "grad=False", "hop=scan & grad=False"])
    assert p == FLOOR and why == "hop=scan"
    assert av.acceptance(["hop=map", "grad=False", "hop=map & grad=False"]) == (1.0, None)
    # grad=True repeats half the time, a little above the campaign's third: lowered, not floored
    p, why = av.acceptance(["hop=cond", "grad=True", "hop=cond & grad=True"])
    assert FLOOR < p < 1.0 and why == "grad=True"
    kept = [s for s in range(400) if av.accept(s, ["hop=scan"])[0]]
    assert 0.06 < len(kept) / 400 < 0.2  # about FLOOR
    assert kept == [s for s in range(400) if av.accept(s, ["hop=scan"])[0]]  # seeded


def test_features_are_choices_their_pairs_and_ops():
    notes = ("family=hop", "hop=scan", "calls=2", "grad=True", "swap_op: Mult -> Add (line 3)")
    assert features(notes, ["sin"]) == (
        "family=hop",
        "family=hop & grad=True",
        "family=hop & hop=scan",
        "grad=True",
        "grad=True & hop=scan",
        "hop=scan",
        "op:sin",
    )
    assert features((), ["sin", "sin"]) == ("op:sin",)


def test_resume_rebuilds_the_counts_and_skips_a_torn_line(tmp_path):
    a = Avoidance(tmp_path)
    a.record(1, ["hop=scan"], True)
    a.record(2, ["hop=cond"], False)
    with (tmp_path / AVOID_FILE).open("a") as f:
        f.write('{"seed": 3, "feat')
    b = Avoidance(tmp_path)
    assert b.load() == 2
    assert (b.checked, b.repeated, b.total, b.repeats) == (a.checked, a.repeated, 2, 1)
    assert json.loads((tmp_path / AVOID_FILE).read_text().splitlines()[0]) == {
        "seed": 1,
        "features": ["hop=scan"],
        "repeat": True,
    }


SRC = """import torch


def fn(x):
    return {body}


def get_inputs():
    return [torch.randn(4)]
"""


class Gen:
    """Seeds 0, 2, 4, ...: a `kind=bug` program (one cause, found again and again); odd seeds: a
    passing `kind=ok` program."""

    name = "fake"

    def generate(self, seed, ctx):
        kind, body = ("bug", "torch.relu(x).sin()") if seed % 2 == 0 else ("ok", "x.cos()")
        prog = program_from_source(SRC.format(body=body), name=f"p{seed}")
        return dataclasses.replace(prog, notes=(f"kind={kind}",))


@pytest.mark.parametrize("packing", [1, 8])
def test_a_campaign_avoids_programs_repeating_its_one_cause_and_resumes(
    tmp_path, monkeypatch, packing
):
    # packing: a campaign checks 8 programs per compile by default (fuzz --pack); an avoided
    # program must be kept out of its pack (the first bench run avoided nothing: it was)
    monkeypatch.setattr(camp, "check_program", fake_check)
    off = Campaign(
        CampaignConfig(out=tmp_path / "off", count=60, pack=packing), generator=Gen()
    ).run()
    assert off["findings"] == 30 and "avoided" not in off["verdicts"]

    cfg = CampaignConfig(out=tmp_path / "on", count=60, avoid_repeats=True, pack=packing)
    on = Campaign(cfg, generator=Gen()).run()
    with Store(tmp_path / "on", readonly=True) as s:
        rows = {r["seed"]: r for r in s.rows()}
    avoided = [r for r in rows.values() if r["status"] == "avoided"]
    assert on["verdicts"]["avoided"] == len(avoided) >= 15
    assert all(r["seed"] % 2 == 0 and "kind=bug" in r["reason"] for r in avoided)
    assert on["findings"] == 30 - len(avoided)  # every ok program still checked
    assert sum(1 for r in rows.values() if r["verdict"] == "pass") == 30
    assert len((tmp_path / "on" / AVOID_FILE).read_text().splitlines()) == 60 - len(avoided)

    cfg = dataclasses.replace(cfg, count=80)
    more = Campaign(cfg, generator=Gen(), resume=True).run()
    with Store(tmp_path / "on", readonly=True) as s:
        late = [r for r in s.rows() if r["seed"] >= 60 and r["seed"] % 2 == 0]
    assert more["programs"] == 80 and sum(r["status"] == "avoided" for r in late) >= 7
