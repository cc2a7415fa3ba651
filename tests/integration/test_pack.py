"""A packed campaign finds what the unpacked one finds, for the same seeds."""

from torchsmith.campaign.config import CampaignConfig
from torchsmith.campaign.loop import Campaign
from torchsmith.campaign.store import Store
from torchsmith.options import CheckOptions

RELU = {"inductor.cpp.inject_relu_bug_TESTING_ONLY": "accuracy"}
GEN = {"ops": "relu,add,mul,sin,cos,exp", "max_nodes": 4}


def _rows(folder):
    with Store(folder, readonly=True) as s:
        return {r["seed"]: (r["verdict"], r["signature"]) for r in s.rows()}


def test_packed_and_unpacked_campaigns_agree_seed_by_seed(tmp_path):
    opts = CheckOptions(config=RELU, timeout=180, localize=False)
    common = dict(count=8, gen_options=GEN, options=opts)
    Campaign(CampaignConfig(out=tmp_path / "one", **common)).run()
    Campaign(CampaignConfig(out=tmp_path / "packed", pack=4, **common)).run()
    one, packed = _rows(tmp_path / "one"), _rows(tmp_path / "packed")
    assert sorted(packed) == list(range(8)) and packed == one
    assert any(v[0] == "mismatch" for v in packed.values())
    assert any(v[0] == "pass" for v in packed.values())
    # Every part carries its share of the pack's time: per-family and per-row figures add up.
    with Store(tmp_path / "packed", readonly=True) as s:
        for r in s.rows():
            assert r["work_s"] > 0 and r["wall_s"] >= r["work_s"], r


def test_a_time_budget_that_ends_mid_pack_stops_the_campaign_cleanly(tmp_path):
    # The deadline (8 s for 400 programs: 50 packs, more than batched builds finish in 8 s)
    # kills the worker inside a packed check; the re-checks of the parts then find no worker.
    # The campaign must stop (seeds unrecorded, redone on resume), not fail.
    cfg = CampaignConfig(
        out=tmp_path / "c", count=400, pack=8, time_budget=8.0, gen_options=GEN,
        options=CheckOptions(timeout=180, localize=False),
    )  # fmt: skip
    summary = Campaign(cfg).run()
    assert summary["state"] == "stopped", summary
    with Store(tmp_path / "c", readonly=True) as s:
        assert not s.rows(status="error")
