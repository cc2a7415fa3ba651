"""A packed campaign finds what the unpacked one finds, for the same seeds."""

from torchsmith.campaign import Campaign, CampaignConfig
from torchsmith.options import CheckOptions
from torchsmith.store import Store

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
