"""The path canary (canary.py): a failure a trivial program on the same path shares is
path-wide, recorded once and never reduced; without workers (fast)."""

import ast
import types

import pytest
from hypothesis import given
from hypothesis import strategies as st

from torchsmith.campaign.reducer import BackgroundReducer
from torchsmith.campaign.store import ProgramRow, Store
from torchsmith.campaign.summary import summarize
from torchsmith.canary import CANARY_SOURCE, Canary, canary_for, explains, path_key
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program, declared_settings
from torchsmith.verdict import CheckResult, Phase, Stage, Verdict

PHASE = {Verdict.PASS: None, Verdict.INVALID: Phase.EAGER}


def res(verdict: Verdict, stage: Stage | None = Stage.INDUCTOR, reason: str = "") -> CheckResult:
    return CheckResult(
        verdict=verdict, phase=PHASE.get(verdict, Phase.COMPILED), stage=stage, reason=reason
    )


AOTI = Program(
    source="import torch\n\ndef fn(x):\n    return x.neg()\n\ndef get_inputs():\n"
    "    return [torch.randn(3)]\n\ncompile_kwargs = {'backend': 'aoti'}\n"
    "compile_config = {'inductor.cpp_wrapper': True}\n",
    name="vmap_neg",
)

BEHAVIOUR = [Verdict.CRASH, Verdict.DIED, Verdict.TIMEOUT]  # compiler bugs (LIMIT is the tool's)
WRONG = [Verdict.MISMATCH, Verdict.NAN_MISMATCH, Verdict.META_MISMATCH]


@pytest.mark.parametrize("verdict", BEHAVIOUR)
def test_a_behaviour_failure_the_canary_shares_is_path_wide(verdict):
    why = explains(res(verdict, Stage.AOTI_RUN), res(verdict, Stage.AOTI_RUN, "SIGSEGV"))
    assert why and "same way" in why and "SIGSEGV" in why and "aoti-run" in why


@given(
    st.sampled_from(BEHAVIOUR + WRONG),
    st.sampled_from(BEHAVIOUR + WRONG + [Verdict.PASS, Verdict.INVALID, Verdict.LIMIT]),
    st.sampled_from([Stage.INDUCTOR, Stage.AOTI_RUN, Stage.DYNAMO]),
    st.sampled_from([Stage.INDUCTOR, Stage.AOTI_RUN, Stage.DYNAMO]),
)
def test_path_wide_needs_the_same_behaviour_verdict_at_the_same_stage(fv, cv, fs, cs):
    why = explains(res(fv, fs), res(cv, cs))
    assert bool(why) == (fv in BEHAVIOUR and fv is cv and fs is cs)


def test_the_canary_takes_the_programs_path_and_carries_no_injected_fault_key():
    c = canary_for(AOTI)
    assert declared_settings(c.source) == declared_settings(AOTI.source)
    assert canary_for(Program(source="x = 1\n")).source == CANARY_SOURCE
    tree = ast.parse(c.source)
    names = {n.attr if isinstance(n, ast.Attribute) else n.id for n in ast.walk(tree)
             if isinstance(n, ast.Attribute | ast.Name)}  # fmt: skip
    assert "relu" not in names  # inductor.cpp.inject_relu_bug_TESTING_ONLY keys on relu
    assert not any(isinstance(n, ast.Set) for n in ast.walk(tree))  # dynamo's BUILD_SET fault


def test_the_path_key_ignores_what_only_bounds_a_run():
    o = CheckOptions()
    assert path_key(AOTI, o) == path_key(AOTI, o.replace(seed=7, timeout=9.0, memory_mb=100))
    assert path_key(AOTI, o) != path_key(AOTI, o.replace(device="cuda"))
    assert path_key(AOTI, o) != path_key(AOTI, o.replace(config={"inductor.freezing": True}))
    assert path_key(AOTI, o) != path_key(Program(source="import torch\n"), o)


def test_one_canary_check_per_path_and_none_for_a_wrong_value():
    calls = []

    def check(program, options):
        calls.append((program.name, options.only, options.bisect))
        return res(Verdict.DIED, Stage.AOTI_RUN, "SIGSEGV")

    canary, o = Canary(), CheckOptions(only="sub", bisect=True)
    assert canary.screen(AOTI, res(Verdict.MISMATCH), o, check) is None  # never screened
    assert calls == []
    for seed in range(3):
        assert canary.screen(AOTI, res(Verdict.DIED, Stage.AOTI_RUN), o.replace(seed=seed), check)
    assert canary.screen(AOTI, res(Verdict.CRASH, Stage.AOTI_RUN), o, check) is None
    assert calls == [("path_canary", None, False)] and canary.runs == 1


def test_the_reducer_marks_a_path_wide_bug_and_does_not_reduce_it():
    reduced, marked, events = [], [], []

    def reduce(f, w):
        reduced.append(f.id)
        return None

    def screen(f, w):
        return "a trivial program fails the same way" if f.id == "wide" else None

    read = lambda fid: types.SimpleNamespace(id=fid)  # noqa: E731
    r = BackgroundReducer(reduce, lambda b, x: b, read, lambda k, t: events.append(k), object,
                          screen=screen, mark=lambda bug, why: marked.append((bug, why)))  # fmt: skip
    r.submit("wide", "sig-wide")
    r.submit("own", "sig-own")
    r.close()
    assert reduced == ["own"] and r.path_wide == ["sig-wide"]
    assert marked == [("sig-wide", "a trivial program fails the same way")]
    assert events == ["path-wide", "reduced"]


def _row(seed, sig, verdict="died", stage="aoti-run"):
    return ProgramRow(
        seed=seed, generator="export", name=f"export_{seed}", verdict=verdict, phase="compiled",
        stage=stage, symptom="segfault", category="bug", signature=sig,
        readable=f"segfault|{stage}|SIGSEGV||_package._load_aoti {sig}", finding=f"f{seed}",
        lines=10, ops=2, options={"backend": "inductor"},
    )  # fmt: skip


def test_a_path_wide_bug_is_labelled_apart_and_is_not_a_new_bug(tmp_path):
    with Store(tmp_path) as s:
        for seed in range(3):
            s.record(_row(seed, "sig-wide"))
        s.record(_row(9, "sig-own", "crash", "inductor"))
        s.set_bug_signature("sig-wide", "sig-wide2", "segfault|aoti-run|SIGSEGV||load")
        s.set_path_wide("sig-wide", "a trivial program on the same path fails the same way")
        summary = summarize(s)
    by = {b["signature"]: b for b in summary["bug_list"]}
    assert by["sig-wide2"]["label"] == "path-wide" and by["sig-wide2"]["count"] == 3
    assert "same way" in by["sig-wide2"]["path_wide"] and not by["sig-wide2"]["known"]
    assert by["sig-own"]["label"] == "new" and by["sig-own"]["path_wide"] is None
    assert summary["labels"]["path-wide"] == 1 and summary["labels"]["new"] == 1
    assert [b["signature"] for b in summary["bug_list"]] == ["sig-own", "sig-wide2"]


def test_a_store_from_before_the_canary_gains_the_column(tmp_path):
    import sqlite3

    db = sqlite3.connect(tmp_path / "campaign.db")
    db.executescript(
        "CREATE TABLE bug_notes (signature TEXT PRIMARY KEY, readable TEXT,"
        " reduced_finding TEXT, refined_from TEXT);"
        "INSERT INTO bug_notes VALUES ('sig-old', 'r', NULL, NULL);"
    )
    db.close()
    with Store(tmp_path) as s:
        s.record(_row(1, "sig-old"))
        assert s.bugs()[0].path_wide is None
        s.set_path_wide("sig-old", "why")
        assert s.bugs()[0].path_wide == "why" and s.bugs()[0].readable == "r"
