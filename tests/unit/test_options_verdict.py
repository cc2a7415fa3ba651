import pytest

from torchsmith.localize import ladder_for, localize
from torchsmith.options import CheckOptions, parse_config_item, split_config
from torchsmith.verdict import SCHEMA_VERSION, CheckResult, Phase, Stage, Symptom, Verdict


def test_parse_config_items():
    assert parse_config_item("inductor.cpp.inject_relu_bug_TESTING_ONLY=accuracy") == (
        "inductor.cpp.inject_relu_bug_TESTING_ONLY",
        "accuracy",
    )
    assert parse_config_item("dynamo.recompile_limit=4") == ("dynamo.recompile_limit", 4)
    assert parse_config_item("inductor.fallback_random=False")[1] is False
    for bad in ("inductor", "nope.x=1", "inductor.x"):
        with pytest.raises(ValueError):
            parse_config_item(bad)


def test_split_config_groups_by_module():
    groups = split_config({"inductor.a.b": 1, "dynamo.c": 2, "functorch.d": 3})
    assert groups == {
        "torch._inductor.config": {"a.b": 1},
        "torch._dynamo.config": {"c": 2},
        "torch._functorch.config": {"d": 3},
    }


def test_options_validate_and_round_trip():
    with pytest.raises(ValueError):
        CheckOptions(dtype="float8")
    with pytest.raises(ValueError):
        CheckOptions(device="tpu")
    o = CheckOptions(backend="aot_eager", dynamic=True, mode="max-autotune")
    assert CheckOptions.from_dict(o.to_dict()) == o
    assert o.compile_kwargs() == {"backend": "aot_eager", "fullgraph": False, "dynamic": True}
    assert CheckOptions(mode="max-autotune").compile_kwargs()["mode"] == "max-autotune"


def _result(verdict: Verdict, phase: Phase | None) -> CheckResult:
    return CheckResult(verdict=verdict, phase=phase, reason="r")


def test_bug_only_in_compiler_phases():
    assert _result(Verdict.CRASH, Phase.COMPILED).is_bug
    assert _result(Verdict.MISMATCH, Phase.COMPARE).is_bug
    assert _result(Verdict.DIED, Phase.COMPILED).is_bug
    assert not _result(Verdict.DIED, Phase.EAGER).is_bug
    assert not _result(Verdict.TIMEOUT, Phase.FP64).is_bug
    assert not _result(Verdict.INVALID, Phase.EAGER).is_bug
    assert [
        _result(v, p).exit_code
        for v, p in [
            (Verdict.PASS, None),
            (Verdict.CRASH, Phase.COMPILED),
            (Verdict.INVALID, Phase.EAGER),
            (Verdict.NONDETERMINISTIC, Phase.EAGER_REPEAT),
            (Verdict.DIED, Phase.EAGER),
        ]
    ] == [0, 1, 2, 2, 2]


def test_symptoms():
    died = CheckResult(Verdict.DIED, Phase.COMPILED, evidence={"signal": "SIGSEGV"})
    assert died.symptom is Symptom.SEGFAULT
    assert (
        CheckResult(Verdict.DIED, Phase.COMPILED, evidence={"memory_exceeded": True}).symptom
        is Symptom.OOM
    )
    assert (
        CheckResult(Verdict.DIED, Phase.COMPILED, evidence={"returncode": 3}).symptom
        is Symptom.EXIT
    )
    assert _result(Verdict.TIMEOUT, Phase.COMPILED).symptom is Symptom.HANG


def test_result_json_round_trip():
    r = CheckResult(
        Verdict.MISMATCH,
        Phase.COMPARE,
        "why",
        {"figures": {}},
        Stage.INDUCTOR,
        {"eager": "pass", "inductor": "mismatch"},
        program="p",
        digest="d",
    )
    d = r.to_dict()
    assert d["schema"] == SCHEMA_VERSION and d["is_bug"] and d["symptom"] == "wrong-value"
    back = CheckResult.from_dict(d)
    assert back.to_dict() == d


def test_ladder_shapes():
    assert ladder_for("inductor") == (
        "eager",
        "aot_eager",
        "aot_eager_decomp_partition",
        "inductor",
    )
    assert ladder_for("aot_eager") == ("eager", "aot_eager")
    assert ladder_for("mybackend")[-1] == "mybackend"


def test_localize_stops_at_first_rung_failing_the_same_way():
    original = _result(Verdict.CRASH, Phase.COMPILED)
    seen = []

    def run_rung(backend):
        seen.append(backend)
        if backend == "aot_eager":
            return _result(Verdict.CRASH, Phase.COMPILED)
        return _result(Verdict.PASS, None)

    stage, table = localize(original, "inductor", run_rung)
    assert stage is Stage.AOTAUTOGRAD
    assert seen == ["eager", "aot_eager"]
    assert table == {
        "eager": "pass",
        "aot_eager": "crash",
        "aot_eager_decomp_partition": "not run",
        "inductor": "crash",
    }


def test_localize_different_failure_does_not_count():
    original = _result(Verdict.MISMATCH, Phase.COMPARE)

    def run_rung(backend):
        return (
            _result(Verdict.CRASH, Phase.COMPILED)
            if backend == "eager"
            else _result(Verdict.PASS, None)
        )

    stage, table = localize(original, "inductor", run_rung)
    assert stage is Stage.INDUCTOR and table["eager"] == "crash"
    assert localize(original, "custom", lambda b: _result(Verdict.PASS, None))[0] is Stage.BACKEND


def test_localize_a_crash_counts_only_with_the_same_exception_and_message():
    """An earlier rung raising something else (``eager`` on a region with gradients) has a
    failure of its own; the rung raising the same exception and message names the stage."""

    def crash(exc, message):
        ev = {"exc_type": exc, "message": message}
        return CheckResult(Verdict.CRASH, phase=Phase.COMPILED, reason="r", evidence=ev)

    original = crash("InductorError", "NotImplementedError: codegen invoke_subgraph")
    other = crash("AssertionError", "fake_mode should be enabled for HOPs")

    def run_rung(backend):
        if backend == "eager":
            return other
        if backend == "aot_eager_decomp_partition":
            return crash("InductorError", "NotImplementedError: codegen invoke_subgraph")
        return _result(Verdict.PASS, None)

    stage, table = localize(original, "inductor", run_rung)
    assert stage is Stage.DECOMP and table["eager"] == "crash" and table["aot_eager"] == "pass"
    assert localize(original, "inductor", lambda b: other)[0] is Stage.INDUCTOR


def test_localize_looks_through_the_wrapper_of_the_last_rung():
    """Inductor's ``BackendCompilerFailed`` around the decomposition rung's own
    ``RuntimeError`` is that rung's failure (``nan_to_num`` with an out-of-range value): the
    stage is the decomposition's; another inner error behind the same wrapper is not."""

    def crash(exc, message):
        ev = {"exc_type": exc, "message": message}
        return CheckResult(Verdict.CRASH, phase=Phase.COMPILED, reason="r", evidence=ev)

    message = "value cannot be converted to type float without overflow"
    original = crash(
        "torch._dynamo.exc.BackendCompilerFailed",
        f"backend='inductor' raised:\nRuntimeError: {message}\n\nWhile executing %x",
    )

    def run_rung(backend):
        if backend == "aot_eager_decomp_partition":
            return crash("RuntimeError", message)
        return _result(Verdict.PASS, None)

    assert localize(original, "inductor", run_rung)[0] is Stage.DECOMP
    other = crash("RuntimeError", "value cannot be converted to type int without overflow")
    assert localize(original, "inductor", lambda b: other)[0] is Stage.INDUCTOR


# -- verdict categories: owned by verdict.py, asked everywhere else -------------------------------
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from torchsmith.verdict import COMPILER_PHASES, Category, CheckResult, Phase, Verdict  # noqa: E402


@given(st.sampled_from(list(Verdict)), st.sampled_from([*Phase, None]))
def test_a_results_category_decides_bug_and_exit_code(verdict, phase):
    r = CheckResult(verdict, phase=phase)
    cat = r.category
    assert r.is_bug == (cat in (Category.BUG, Category.LESSER))
    assert r.exit_code == {Category.PASS: 0, Category.BUG: 1, Category.LESSER: 1}.get(cat, 2)
    if phase not in COMPILER_PHASES and verdict is not Verdict.PASS:
        assert not r.is_bug
    assert (r.finding_kind == "bug") == r.is_bug


def test_imprecise_is_a_lesser_bug_everywhere():
    r = CheckResult(Verdict.IMPRECISE, phase=Phase.COMPILED)
    assert r.category is Category.LESSER and r.is_bug and r.exit_code == 1
    from torchsmith.regress import classify

    class _F:  # the two attributes classify reads of a finding
        result = CheckResult(Verdict.MISMATCH, phase=Phase.COMPILED)
        program = None
        signature = "sig-x"

    assert classify(_F(), r)[0] != "passes"
    assert classify(_F(), CheckResult(Verdict.PASS))[0] == "passes"
    assert classify(_F(), CheckResult(Verdict.UNSTABLE, phase=Phase.COMPILED))[0] == "not-judged"


def test_groupings_partition_sensibly():
    assert {v for v in Verdict if v.is_numeric_mismatch} == {Verdict.MISMATCH, Verdict.NAN_MISMATCH}
    assert all(v.is_wrong_output for v in Verdict if v.is_accuracy)
    assert not any(v.is_behaviour and v.is_wrong_output for v in Verdict)
    assert not Verdict.INVALID.eager_valid and Verdict.IMPRECISE.eager_valid
    assert {v.category for v in Verdict} == set(Category)


@settings(deadline=None)  # the first example imports rich
@given(st.sampled_from(list(Verdict)), st.sampled_from([*Phase, None]))
def test_every_result_prints_with_its_categorys_style(verdict, phase):
    import io

    from rich.console import Console

    from torchsmith.report.console import print_result

    buf = io.StringIO()
    print_result(CheckResult(verdict, phase=phase, reason="r"), Console(file=buf, width=100))
    assert verdict.value.upper() in buf.getvalue()


def test_declared_settings_come_back_out_of_a_findings_options():
    """``without_declared`` undoes ``with_declared`` for what the program declares (the
    reducer's options: each candidate declares for itself) and keeps the rest."""
    declared = (
        {"backend": "aoti", "dynamic": True},
        {"inductor.cpp_wrapper": True},
        {"grad": True},
    )
    mine_cfg = CheckOptions(config={"inductor.freezing": True}, tol=1e-3)
    found = mine_cfg.with_declared(*declared)
    assert found.backend == "aoti" and found.dynamic is True and found.grad
    back = found.without_declared(*declared)
    assert back == mine_cfg
    # a value the user gave that differs from the declaration stays
    mine = CheckOptions(backend="aot_eager").with_declared(*declared)
    assert mine.without_declared(*declared).backend == "aot_eager"
