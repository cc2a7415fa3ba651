"""Compiler line coverage of a campaign and the family weights it steers (campaign/steer.py)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from torchsmith.campaign.config import CampaignConfig
from torchsmith.campaign.steer import CLIP, LINES_FILE, MIN_SAMPLES, LineCoverage, read_curve
from torchsmith.campaign.summary import coverage_summary
from torchsmith.generate.mix import MixGenerator
from torchsmith.generate.protocol import GenContext

FAMILIES = ("graph", "opinfo", "python")
samples = st.lists(
    st.tuples(
        st.sampled_from(FAMILIES),
        st.dictionaries(
            st.sampled_from(["_dynamo/a.py", "_inductor/b.py", "_functorch/c.py"]),
            st.lists(st.integers(1, 60), max_size=20),
            max_size=3,
        ),
    ),
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(samples)
def test_new_counts_sum_to_the_union_and_every_multiplier_is_clipped(rows):
    cov = LineCoverage(steer=True)
    news = [cov.record(fam, lines) for fam, lines in rows]
    union = {(f, n) for _, lines in rows for f, ns in lines.items() for n in ns}
    assert sum(news) == cov.total == len(union)
    for mult in cov.boost().values():
        assert 1 / CLIP <= mult <= CLIP


def test_the_first_sample_is_the_baseline_and_credits_no_family():
    cov = LineCoverage(steer=True)
    assert cov.record("python", {"_dynamo/a.py": list(range(1000))}) == 1000
    assert cov.samples == {} and cov.total == 1000
    assert cov.record("graph", {"_dynamo/a.py": [1, 2, 1001]}) == 1  # only line 1001 is new


def test_a_family_reaching_new_lines_weighs_more_and_one_that_stops_loses_it():
    cov = LineCoverage(steer=True)
    cov.record("python", {"f": [0]})  # baseline
    nxt = iter(range(1, 10**6))
    for _ in range(MIN_SAMPLES):
        cov.record("graph", {"f": [next(nxt) for _ in range(50)]})
        cov.record("opinfo", {"f": [next(nxt) for _ in range(5)]})
    boost = cov.boost()
    assert boost["graph"] > 1 > boost["opinfo"]
    for _ in range(20):  # graph reaches nothing new any more; opinfo keeps going
        cov.record("graph", {"f": [1]})
        cov.record("opinfo", {"f": [next(nxt) for _ in range(5)]})
    boost = cov.boost()
    assert boost["opinfo"] > 1 > boost["graph"]
    assert LineCoverage(steer=False).boost() == {}


def test_too_few_samples_steer_nothing():
    cov = LineCoverage(steer=True)
    cov.record("python", {"f": [0]})
    for i in range(MIN_SAMPLES - 1):
        cov.record("graph", {"f": [i + 1]})
    assert cov.boost() == {}


def test_the_boost_moves_the_mix_draw():
    mix = MixGenerator(families="graph=1,python=1")
    w = mix.current_weights(GenContext(boost={"graph": 4.0, "python": 0.25}))
    assert w["graph"] == pytest.approx(16 * w["python"])
    off = MixGenerator(families="graph=1,python=1", adaptive=False)
    assert off.current_weights(GenContext(boost={"graph": 4.0})) == {"graph": 1.0, "python": 1.0}


def test_resume_rebuilds_the_union_rates_and_curve_and_skips_a_torn_line(tmp_path):
    a = LineCoverage(tmp_path, every=2, steer=True)
    a.record("python", {"f": [1, 2, 3]}, t=1.0, seed=0)
    for i in range(MIN_SAMPLES):
        a.record("graph", {"f": [10 + i, 20 + i]}, t=2.0 + i, seed=2 + 2 * i)
    with (tmp_path / LINES_FILE).open("a") as f:
        f.write('{"t": 9, "fam')  # killed mid-write
    b = LineCoverage(tmp_path, every=2, steer=True)
    assert b.load() == 1 + MIN_SAMPLES
    assert (b.union, b.total, b.rate, b.curve) == (a.union, a.total, a.rate, a.curve)
    assert b.boost() == a.boost()
    curve = read_curve(tmp_path)
    assert [r["total"] for r in curve] == [3, 5, 7, 9]
    summary = coverage_summary(curve)
    assert summary == {
        "lines": 9,
        "baseline": 3,
        "samples": 4,
        "new_lines": {"graph": 6},
        "samples_by_family": {"graph": 3},
    }
    assert json.loads((tmp_path / LINES_FILE).read_text().splitlines()[0])["lines"] == {
        "f": [1, 2, 3]
    }


def test_sampling_is_by_seed_not_family():
    cov = LineCoverage(every=4)
    assert [s for s in range(10) if cov.sampled(s)] == [0, 4, 8]
    with pytest.raises(ValueError):
        LineCoverage(every=0)


def test_steering_needs_the_mix_and_turns_sampling_on(tmp_path):
    cfg = CampaignConfig.new(tmp_path / "a", generator="mix", steer=True)
    assert cfg.coverage_every == 4
    assert (
        CampaignConfig.new(
            tmp_path / "b", generator="mix", steer=True, coverage_every=9
        ).coverage_every
        == 9
    )
    with pytest.raises(ValueError, match="--generator mix"):
        CampaignConfig.new(tmp_path / "c", generator="graph", steer=True)
    with pytest.raises(ValueError, match="--coverage-every"):
        CampaignConfig.new(tmp_path / "d", generator="graph", coverage_every=-1)
    assert CampaignConfig.new(tmp_path / "e", generator="graph", coverage_every=3).steer is False
