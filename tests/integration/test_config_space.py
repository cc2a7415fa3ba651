"""fuzz --config-space on a real compiler: a planted fault among harmless settings is bisected
down to exactly its one key, and the finding and its report name it."""

import json

import pytest

from torchsmith.campaign.config import CampaignConfig
from torchsmith.campaign.loop import Campaign
from torchsmith.campaign.store import Store
from torchsmith.finding import read_finding
from torchsmith.options import CheckOptions
from torchsmith.report.markdown import render

RELU_BUG = "inductor.cpp.inject_relu_bug_TESTING_ONLY"
TABLE = {
    "share": 1.0,
    "settings": [
        {"key": RELU_BUG, "values": ["accuracy"], "why": "the planted fault (test only)"},
        {"key": "inductor.size_asserts", "values": [False], "why": "harmless: no size asserts"},
        {"key": "inductor.split_reductions", "values": [False], "why": "harmless: one loop"},
        {"key": "dynamo.capture_scalar_outputs", "values": [True], "why": "harmless here"},
    ],
}


@pytest.mark.slow
def test_a_planted_fault_is_bisected_to_its_one_key(tmp_path):
    table = tmp_path / "space.json"
    table.write_text(json.dumps(TABLE))
    # seed 0 of this generator: relu in the program, and all four settings sampled
    cfg = CampaignConfig.new(
        tmp_path / "c",
        count=1,
        pack=1,
        generator="graph",
        gen_options={"ops": "relu,add,sin,mul", "max_nodes": 4, "shapes": "random"},
        options=CheckOptions(timeout=120, localize=False),
        config_space=str(table),
    )
    summary = Campaign(cfg).run()
    assert summary["state"] == "finished"
    with Store(cfg.out, readonly=True) as store:
        (row,) = store.rows()
        options = store.options_of(row["options_id"])
    assert row["category"] == "bug", row
    assert options["config"] == {RELU_BUG: "accuracy"}  # the row: the minimal set only
    finding = read_finding(cfg.out / "findings" / row["finding"])
    info = finding.info
    assert info.config_settings == {RELU_BUG: "accuracy"}
    assert set(info.config_sampled) == {s["key"] for s in TABLE["settings"]}
    trials = finding.meta["config_trials"]
    assert trials[0] == {"settings": {}, "verdict": "pass", "same": False}  # not a default-path bug
    assert all(t["same"] == (RELU_BUG in t["settings"]) for t in trials), trials
    assert finding.options.config == {RELU_BUG: "accuracy"}  # the repro sets exactly that
    repro = (finding.folder / "repro.py").read_text()
    assert "torch._inductor.config.cpp.inject_relu_bug_TESTING_ONLY = 'accuracy'" in repro
    for key in ("size_asserts", "split_reductions", "capture_scalar_outputs"):
        assert f"{key} =" not in repro
    report = render(finding, env="-")
    assert f"Needs exactly `{RELU_BUG}='accuracy'` (bisected from the sampled" in report
