"""The config space: the table, user tables, the sampler, the weights and the bisection (no
compiler: the bisection's checker is a stand-in that fails under chosen settings)."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import torchsmith.campaign.loop as camp
import torchsmith.configspace.session as session
from torchsmith.campaign.config import CampaignConfig, CampaignError
from torchsmith.campaign.loop import Campaign
from torchsmith.campaign.store import Store
from torchsmith.configspace.bisect import minimal_settings, same_way
from torchsmith.configspace.entry import Entry, matches
from torchsmith.configspace.present import present
from torchsmith.configspace.session import ConfigSampler
from torchsmith.configspace.space import Space, load_space, space_from_dict
from torchsmith.configspace.table import DEFAULT_TABLE
from torchsmith.finding import read_finding
from torchsmith.options import CheckOptions
from torchsmith.program.load import program_from_source
from torchsmith.verdict import CheckResult, Phase, Stage, Verdict


def installed() -> dict:
    """What this machine's torch has: the same look-up the worker makes."""
    return present(sorted({e.key for e in DEFAULT_TABLE} | {"inductor.no_such_key_at_all"}))


# -- the table ------------------------------------------------------------------------------------
def test_every_entry_is_well_formed_and_none_is_forbidden():
    keys = [e.key for e in DEFAULT_TABLE]
    assert len(keys) == len(set(keys)) >= 20
    for e in DEFAULT_TABLE:
        assert e.key.split(".")[0] in ("inductor", "dynamo", "functorch"), e.key
        assert e.values and len(e.why) > 20 and "\n" not in e.why, e.key
        assert "TESTING_ONLY" not in e.key and e.key != "inductor.fallback_random"
        json.dumps(list(e.values))  # check options are JSON
        for atom in (*e.excludes, *e.requires):
            assert atom.split("=")[0] in keys, (e.key, atom)  # refers to a table entry
    asked = {
        "inductor.freezing",
        "inductor.cpp_wrapper",
        "inductor.max_autotune",
        "inductor.emulate_precision_casts",
        "inductor.epilogue_fusion",
        "inductor.aggressive_fusion",
        "inductor.split_reductions",
        "inductor.cpp.simdlen",
        "inductor.size_asserts",
        "inductor.cpp.enable_floating_point_contract_flag",
        "dynamo.specialize_float",
        "dynamo.capture_scalar_outputs",
        "dynamo.capture_dynamic_output_shape_ops",
        "dynamo.assume_static_by_default",
        "dynamo.automatic_dynamic_shapes",
        "functorch.donated_buffer",
        "functorch.view_replay_for_aliased_outputs",
    }
    assert asked <= set(keys)


def test_the_installed_torch_has_every_key_and_missing_keys_and_defaults_are_skipped():
    have = installed()
    assert "inductor.no_such_key_at_all" not in have
    assert {e.key for e in DEFAULT_TABLE} <= set(have)  # torch 2.13 has them all
    space = Space(DEFAULT_TABLE).resolved(have)
    for e in space.entries:
        assert have[e.key] not in e.values or type(have[e.key]) is not type(e.values[0])
    # a value equal to the installed default is dropped: 2.13's specialize_float is False
    (sf,) = [e for e in space.entries if e.key == "dynamo.specialize_float"]
    assert sf.values == (not have["dynamo.specialize_float"],)
    # cuda-only entries are skipped on a CPU campaign; an absent key is skipped
    assert "inductor.coordinate_descent_tuning" not in space.keys
    on_cuda = Space(DEFAULT_TABLE).resolved(have, "cuda").keys
    assert "inductor.coordinate_descent_tuning" in on_cuda
    # the Triton switches are drawn on CUDA only, the C++ backend's knobs on the CPU only
    triton = {k for k in on_cuda if k.startswith("inductor.triton.")}
    assert len(triton) >= 10 and not triton & set(space.keys)
    cpp = {k for k in space.keys if k.startswith("inductor.cpp.")}
    assert len(cpp) >= 10 and not cpp & set(on_cuda)
    assert "inductor.cpp_wrapper" in on_cuda and "inductor.cpp_wrapper" in space.keys
    lacking = {k: v for k, v in have.items() if k != "inductor.freezing"}
    assert "inductor.freezing" not in Space(DEFAULT_TABLE).resolved(lacking).keys
    # concat_linear requires freezing: without freezing it is skipped too
    assert "inductor.cpp.enable_concat_linear" not in Space(DEFAULT_TABLE).resolved(lacking).keys


# -- exclusions, under a property -----------------------------------------------------------------
RESOLVED = Space(DEFAULT_TABLE).resolved(installed())


def excluded_pair(space: Space, chosen: dict) -> tuple | None:
    for k1 in chosen:
        e1 = space.entry(k1)
        for k2, v2 in chosen.items():
            if k1 != k2 and e1 is not None and any(matches(a, k2, v2) for a in e1.excludes):
                return (k1, k2)
    return None


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 10**9),
    boosts=st.dictionaries(st.sampled_from(RESOLVED.keys), st.floats(0, 50)),
)
def test_no_sample_ever_holds_an_excluded_combination(seed, boosts):
    chosen = RESOLVED.sample(seed, {k: 1.0 + b for k, b in boosts.items()})
    assert len({k for k in chosen if k in RESOLVED.keys}) <= 4
    assert excluded_pair(RESOLVED, chosen) is None, chosen
    for key, value in chosen.items():
        entry = RESOLVED.entry(key)
        assert entry is not None and value in entry.values
        for atom in entry.requires:  # what an entry needs comes along
            k, v = atom.split("=")
            assert str(chosen.get(k)) == v


@settings(max_examples=100, deadline=None)
@given(seed=st.integers(0, 10**6))
def test_fixed_settings_are_never_overridden_and_count_for_exclusions(seed):
    fixed = {"dynamo.assume_static_by_default": False, "inductor.force_layout_optimization": True}
    chosen = RESOLVED.sample(seed, fixed=fixed)
    assert not set(chosen) & set(fixed)
    assert "dynamo.automatic_dynamic_shapes" not in chosen  # excluded with the fixed False
    assert "inductor.layout_optimization" not in chosen


# -- the sampler ----------------------------------------------------------------------------------
def test_the_same_seed_gives_the_same_set_and_about_half_the_programs_get_one():
    a = [RESOLVED.sample(s) for s in range(400)]
    assert a == [RESOLVED.sample(s) for s in range(400)]
    share = sum(bool(x) for x in a) / len(a)
    assert 0.4 < share < 0.6
    sizes = {len([k for k in x if not k.endswith("freezing")]) for x in a if x}
    assert {1, 2, 3} <= sizes
    assert all(bool(x) == RESOLVED.sampled(s) for s, x in enumerate(a))
    # whether a seed is sampled does not depend on the weights (packing is decided early)
    heavy = {k: 100.0 for k in RESOLVED.keys[:3]}
    assert [bool(RESOLVED.sample(s, heavy)) for s in range(400)] == [bool(x) for x in a]


def test_a_user_table_in_json_or_toml(tmp_path):
    data = {
        "share": 1.0,
        "max_settings": 2,
        "settings": [
            {"key": "inductor.freezing", "values": [True], "why": "inference deployments"},
            {
                "key": "inductor.cpp.simdlen",
                "values": [1, 512],
                "why": "pin the vector width",
                "excludes": ["inductor.freezing"],
            },
        ],
    }
    (tmp_path / "t.json").write_text(json.dumps(data))
    toml = """share = 1.0
max_settings = 2

[[settings]]
key = "inductor.freezing"
values = [true]
why = "inference deployments"

[[settings]]
key = "inductor.cpp.simdlen"
values = [1, 512]
why = "pin the vector width"
excludes = ["inductor.freezing"]
"""
    (tmp_path / "t.toml").write_text(toml)
    a, b = load_space(tmp_path / "t.json"), load_space(tmp_path / "t.toml")
    assert a.entries == b.entries and a.share == b.share == 1.0
    want = Entry("inductor.cpp.simdlen", (1, 512), "pin the vector width", ("inductor.freezing",))
    assert a.entries[1] == want
    for s in range(50):
        chosen = a.sample(s)
        assert 1 <= len(chosen) <= 2 and len(chosen) == 1  # the two exclude each other
    assert load_space("default").keys == [e.key for e in DEFAULT_TABLE]


@pytest.mark.parametrize(
    "bad, match",
    [
        ({"settings": [{"key": "inductor.x", "values": [], "why": "w"}]}, "no values"),
        ({"settings": [{"key": "x", "values": [1], "why": "w"}]}, "must start with"),
        ({"settings": [{"key": "inductor.x", "values": [1], "why": ""}]}, "say why"),
        ({"settings": [{"key": "inductor.x", "values": [1], "why": "w", "wat": 1}]}, "unknown"),
        ({"settings": [], "bogus": 1}, "unknown keys"),
        ({"setting": []}, "needs a 'settings' list"),
        ({"settings": [], "share": 2}, "share"),
        (
            {
                "settings": [
                    {"key": "inductor.x", "values": [1], "why": "w", "requires": ["inductor.y"]}
                ]
            },
            "needs =VALUE",
        ),
    ],
)
def test_a_bad_user_table_is_refused_naming_what(bad, match):
    with pytest.raises(ValueError, match=match):
        space_from_dict(bad)


def test_the_campaign_refuses_a_bad_table_and_keeps_the_space_on_resume(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        CampaignConfig.new(tmp_path / "c", config_space=str(tmp_path / "none.json"))
    cfg = CampaignConfig.new(tmp_path / "c", config_space="default")
    cfg.out.mkdir()
    assert cfg.to_params()["config_space"] == "default"
    with Store(cfg.out) as store:
        store.set_params(**cfg.to_params())
    assert CampaignConfig.resumed(cfg.out).config_space == "default"
    with pytest.raises(CampaignError, match="--config-space"):
        CampaignConfig.resumed(cfg.out, config_space="x.json")


# -- the weights ----------------------------------------------------------------------------------
def test_settings_that_took_part_in_bugs_get_more_weight_deterministically():
    sampler = ConfigSampler("default", CheckOptions())
    sampler.space = RESOLVED
    assert sampler.weights() == {}  # no yields: each entry's own weight
    for _ in range(100):
        sampler.record({"inductor.freezing": True, "inductor.size_asserts": False}, {}, False)
    for _ in range(10):
        sampler.record(
            {"inductor.freezing": True, "inductor.size_asserts": False},
            {"inductor.freezing": True},
            True,
        )
    w = sampler.weights()
    assert w["inductor.freezing"] > 2 * w["inductor.size_asserts"]
    assert w["inductor.size_asserts"] < w["inductor.cpp_wrapper"]  # tried a lot, found nothing
    assert w == sampler.weights()  # a function of the yields
    assert ConfigSampler("default", CheckOptions(), adaptive=False).weights() == {}
    # a boosted entry is drawn more often
    # (entries that require freezing, drawn at their own weight, also bring it in: the ratio of
    # draws is below the ratio of weights, 2.38 / 1.4)
    boosted = sum("inductor.freezing" in RESOLVED.sample(s, w) for s in range(3000))
    plain = sum("inductor.freezing" in RESOLVED.sample(s) for s in range(3000))
    assert boosted > 1.25 * plain


def test_settings_documented_not_to_support_a_program_trait_are_never_drawn_for_it():
    # "After freezing, weights can no longer be updated" (inductor/config.py): a training step
    # under freezing updated stale constants, a config-train false alarm of the bug tier.
    sampler = ConfigSampler("default", CheckOptions())
    sampler.space = RESOLVED
    train = program_from_source(
        "import torch\n\nclass Model(torch.nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.lin = torch.nn.Linear(2, 2)\n"
        "        self.opt = torch.optim.SGD(self.lin.parameters(), lr=0.1)\n\n"
        "    def forward(self, x):\n        return self.lin(x)\n\n"
        "def get_inputs():\n    return [torch.randn(2, 2)]\n",
        name="train",
    )
    infer = program_from_source(train.source.replace("torch.optim.SGD", "list"), name="infer")
    frozen = {"inductor.freezing", "inductor.cpp.enable_concat_linear"}
    drawn_train = [set(sampler.pick(s, train, None)[1]) for s in range(800)]
    drawn_infer = [set(sampler.pick(s, infer, None)[1]) for s in range(800)]
    assert not any(d & frozen for d in drawn_train)
    assert sum("inductor.freezing" in d for d in drawn_infer) > 20
    assert sum(bool(d) for d in drawn_train) > 300  # the others are still drawn
    with pytest.raises(ValueError, match="unknown trait"):
        Entry("inductor.freezing", (True,), "why", not_for=("flies",))


# -- bisection with a stand-in checker ------------------------------------------------------------
def result(verdict=Verdict.MISMATCH, stage=Stage.INDUCTOR, **ev) -> CheckResult:
    ev = ev or {"figures": {"compiled_vs_fp64": 1.0}}
    return CheckResult(verdict, Phase.COMPARE, stage=stage, evidence=ev)


def checker(needed: set[str], calls: list):
    def recheck(trial):
        calls.append(dict(trial))
        return result() if needed <= set(trial) else result(Verdict.PASS, None)

    return recheck


SAMPLE = {"a.x": 1, "b.y": True, "c.z": "on", "d.w": 0.5}


@pytest.mark.parametrize(
    "needed", [set(), {"a.x"}, {"c.z"}, {"d.w"}, {"a.x", "d.w"}, {"b.y", "c.z", "d.w"}]
)
def test_bisection_finds_exactly_the_settings_a_failure_needs(needed):
    calls = []
    found = minimal_settings(SAMPLE, result(), checker(needed, calls))
    assert set(found.settings) == needed and found.default_path == (not needed)
    assert found.settings == {k: SAMPLE[k] for k in needed}
    assert calls[0] == {} and len(calls) <= len(SAMPLE) + 1
    assert found.result.verdict is Verdict.MISMATCH
    meta = found.meta()
    assert meta["config_sampled"] == SAMPLE and meta["config_settings"] == found.settings
    assert len(meta["config_trials"]) == len(calls)


def test_a_different_failure_is_not_the_same_way_and_errors_do_not_count():
    calls = []

    def recheck(trial):
        calls.append(trial)
        if "a.x" not in trial:  # crashes instead, without a.x: a different failure
            return result(Verdict.CRASH, exc_type="RuntimeError", message="boom")
        if "b.y" not in trial:  # fails at another stage
            return result(stage=Stage.DYNAMO)
        if "c.z" not in trial:
            raise RuntimeError("the worker cannot start")
        return result()

    found = minimal_settings(SAMPLE, result(), recheck)
    assert found.settings == {"a.x": 1, "b.y": True, "c.z": "on"}
    assert [t["same"] for t in found.meta()["config_trials"]] == [False] * 4 + [True]
    assert not same_way(result(), result(stage=Stage.DYNAMO))
    assert not same_way(result(), result(Verdict.MISMATCH, figures={"x": 1}))
    assert minimal_settings({}, result(), recheck).settings == {} and len(calls) == 5


# -- the campaign hook (stand-in checker, no worker) ------------------------------------------------
SRC = """import torch


class Model(torch.nn.Module):
    def forward(self, x):
        return torch.relu(x) + {i}


def get_inputs():
    return [torch.randn(4)]
"""


class Gen:
    name = "fake"

    def generate(self, seed, ctx):
        return program_from_source(SRC.format(i=seed), name=f"p{seed}")


def test_the_loop_samples_bisects_records_and_steers(tmp_path, monkeypatch):
    """Programs fail exactly when checked with ``split_reductions=False``: every bug finding
    names that one setting, rows record the settings they were checked with, and the yields
    credit it."""
    key = "inductor.split_reductions"

    def fake_check(program, options, worker):
        bug = options.config.get(key) is False
        return CheckResult(
            Verdict.MISMATCH if bug else Verdict.PASS,
            Phase.COMPARE if bug else None,
            stage=Stage.INDUCTOR if bug else None,
            evidence={"figures": {"compiled_vs_fp64": 1.0}} if bug else {},
            program=program.name,
            digest=program.digest,
            options=options.to_dict(),
        )

    def resolve(self, worker):
        self.space = self.table.resolved(installed())
        return self.space

    monkeypatch.setattr(camp, "check_program", fake_check)
    monkeypatch.setattr(session, "check_program", fake_check)
    monkeypatch.setattr(ConfigSampler, "resolve", resolve)
    cfg = CampaignConfig(out=tmp_path, count=60, config_space="default", pack=4)
    campaign = Campaign(cfg, generator=Gen())
    summary = campaign.run()
    assert summary["state"] == "finished" and summary["programs"] == 60
    with Store(tmp_path, readonly=True) as s:
        rows = {r["seed"]: r for r in s.rows()}
        for r in rows.values():
            r["options"] = s.options_of(r["options_id"])
    sampled = [seed for seed in rows if campaign.space.sampled(seed)]
    assert 15 < len(sampled) < 45
    bugs = [r for r in rows.values() if r["category"] == "bug"]
    assert bugs, "some sample should hold split_reductions=False"
    for r in rows.values():
        config = r["options"]["config"]
        if r["seed"] not in sampled:
            assert config == {}  # the default path: the campaign's own options
        if r["category"] == "bug":
            assert config == {key: False}  # the row keeps the minimal set
            meta = read_finding(tmp_path / "findings" / r["finding"]).info
            assert meta.config_settings == {key: False}
            assert key in meta.config_sampled
        else:
            assert config.get(key) is not False
    assert campaign.space.yields[key][1] == len(bugs)
    assert campaign.space.weights()[key] == max(campaign.space.weights().values())


def test_the_library_call_checks_then_bisects(monkeypatch):
    seen = []

    def fake_check(program, options, worker):
        seen.append(dict(options.config))
        bad = options.config.get("inductor.freezing") is True
        return result() if bad else result(Verdict.PASS, None)

    monkeypatch.setattr(session, "check_program", fake_check)
    prog = Gen().generate(0, None)
    base = CheckOptions(config={"inductor.size_asserts": False})  # the user's own, kept
    both = {"inductor.freezing": True, "dynamo.capture_scalar_outputs": True}
    found = session.bisect_program(prog, both, base, worker=object())
    assert found is not None and found.settings == {"inductor.freezing": True}
    assert all(c["inductor.size_asserts"] is False for c in seen)
    assert seen[:2] == [{**base.config, **both}, base.config]  # the sample, then none
    assert (
        session.bisect_program(prog, {"dynamo.capture_scalar_outputs": True}, base, object())
        is None
    )
