"""The sensitivity probe's decisions on hand-made tensors: no compiler, no worker."""

import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from torchsmith.oracle.sensitivity import (
    coverage,
    flip_score,
    judge,
    judge_discrete,
    judge_float,
    multiplier,
    verdict_of,
)
from torchsmith.verdict import Verdict

TOL = 1e-4


def noisy(x: torch.Tensor, rel: float, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return (x.double() * (1 + rel * torch.randn(x.shape, generator=g, dtype=torch.float64))).to(
        x.dtype
    )


# -- floats ---------------------------------------------------------------------------------------
def test_compiled_within_the_band_of_legitimate_runs_is_explained():
    truth = torch.randn(500, dtype=torch.float64)
    eager = noisy(truth.float(), 1e-7, 1)
    compiled = noisy(truth.float(), 1e-3, 2)  # far worse than eager ...
    runs = {f"p{i}": noisy(truth.float(), 1e-3, 10 + i) for i in range(4)}  # ... as are the runs
    j = judge_float("out", eager, compiled, truth, runs, TOL)
    assert j.explained and j.how in ("band", "aggregate")


def test_a_wrong_answer_stays_a_mismatch_with_high_confidence():
    truth = torch.randn(500, dtype=torch.float64)
    eager = truth.float()
    runs = {f"p{i}": noisy(eager, 1e-7, i) for i in range(4)}
    j = judge_float("out", eager, eager + 1.0, truth, runs, TOL)
    assert not j.explained
    assert j.confidence["level"] == "high" and j.confidence["score"] > 1e4
    assert j.confidence["unexplained_fraction"] == 1.0


def test_one_sensitive_element_explains_itself_but_not_a_wrong_answer_elsewhere():
    x = torch.linspace(1, 2, 200, dtype=torch.float64)
    x[7] = 1e-7  # 1/x is huge and unstable there
    truth = 1 / x
    eager = (1 / x.float()).float()
    runs = {"p": eager.clone()}
    runs["p"][7] *= 1.5  # eager itself moves by 50 % at the sensitive element
    compiled = eager.clone()
    compiled[7] *= 1.3
    assert judge_float("out", eager, compiled, truth, runs, TOL).explained
    compiled[100] += 0.5  # a wrong answer at a stable element
    j = judge_float("out", eager, compiled, truth, runs, TOL)
    assert not j.explained and j.figures["unexplained"] == 1


def test_nan_where_some_run_has_nan_is_explained_and_elsewhere_is_a_nan_mismatch():
    eager = torch.tensor([1e-4, 2e-4, 3e-4, 0.5])
    truth = eager.double()
    compiled = eager.clone()
    compiled[0] = float("nan")
    run = eager.clone()
    run[0] = float("nan")
    assert judge_float("out", eager, compiled, truth, {"r": run}, TOL).explained
    compiled[3] = float("nan")
    j = judge_float("out", eager, compiled, truth, {"r": run}, TOL)
    assert not j.explained and j.kind == "nan" and j.figures["left"] == 1


def test_a_run_with_nan_does_not_excuse_any_finite_value():
    eager = torch.tensor([1e-4, 2e-4, 3e-4])
    run = torch.tensor([float("nan"), 2e-4, 3e-4])
    compiled = torch.tensor([0.5, 2e-4, 3e-4])
    j = judge_float("out", eager, compiled, eager.double(), {"r": run}, TOL)
    assert not j.explained


def test_infinity_matching_a_run_is_explained():
    eager = torch.tensor([1e30, 1.0])
    compiled = torch.tensor([math.inf, 1.0])
    run = torch.tensor([math.inf, 1.0])
    assert judge_float("out", eager, compiled, eager.double(), {"r": run}, TOL).explained
    assert not judge_float("out", eager, compiled, eager.double(), {}, TOL).explained


def test_without_a_reference_deviations_are_measured_from_eager():
    eager = torch.randn(100)
    run = eager + 1e-3
    assert judge_float("out", eager, eager - 1e-3, None, {"r": run}, TOL).explained
    assert not judge_float("out", eager, eager + 1.0, None, {"r": run}, TOL).explained


def test_multiplier_follows_same():
    assert multiplier(torch.zeros(5000), 1e-4) == 2.0
    assert multiplier(torch.zeros(10), 1e-4) == 3.0
    assert multiplier(torch.zeros(5000, dtype=torch.float16), 1e-4) == 3.0
    assert multiplier(torch.zeros(8, 300, 1, 1), 1e-4) == 3.0


# -- discrete -------------------------------------------------------------------------------------
def test_flips_a_boundary_run_reproduces_are_explained():
    eager = torch.tensor([12, 5, 7, 9], dtype=torch.int32)
    compiled = torch.tensor([13, 5, 7, 9], dtype=torch.int32)
    boundary = torch.tensor([13, 5, 7, 8], dtype=torch.int32)
    j = judge_discrete("out", eager, compiled, eager.clone(), {"b": boundary})
    assert j.explained and j.how == "boundary"


def test_flips_no_run_reproduces_stay_with_a_confidence():
    eager = torch.arange(100)
    compiled = eager.clone()
    compiled[[3, 50]] += 1
    runs = {"b": eager.clone(), "p": eager.clone()}
    j = judge_discrete("out", eager, compiled, eager.clone(), runs)
    assert not j.explained and j.confidence["left"] == 2 and j.confidence["score"] == 2.0


def test_fp64_siding_with_compiled_explains_a_flip():
    eager = torch.tensor([True, False])
    compiled = torch.tensor([True, True])
    assert judge_discrete("out", eager, compiled, compiled.clone(), {}).how == "reference"
    assert not judge_discrete("out", eager, compiled, eager.clone(), {}).explained


def test_noise_positions_left_over_by_sampling_are_explained():
    g = torch.Generator().manual_seed(0)
    n = 2000
    eager = torch.zeros(n, dtype=torch.bool)
    compiled = torch.rand(n, generator=g) < 0.5  # coin flips: pure rounding noise
    runs = {f"r{i}": torch.rand(n, generator=g) < 0.5 for i in range(4)}
    j = judge_discrete("out", eager, compiled, None, runs)
    assert j.figures["left"] > 0  # 1/16 of the flips are missed by four runs ...
    assert j.explained and j.how == "sampling"  # ... as sampling predicts


def test_majority_rule_keeps_stable_flips_among_noise():
    cands = torch.ones(100, dtype=torch.bool)
    half = torch.arange(100) < 30
    ok, inconclusive, figs = coverage(cands, {"r": half})
    assert not ok and figs["left"] == 70 and not inconclusive


def test_flip_score_counts_flips_beyond_what_one_more_run_would_leave():
    assert flip_score({"left": 40, "unseen_per_run": 0.0}) == 40
    assert flip_score({"left": 40, "unseen_per_run": 4.0}) == 4.0


# -- whole outputs --------------------------------------------------------------------------------
def test_judge_walks_nested_outputs_and_uses_the_better_reference():
    a = torch.tensor([1.0, 2.0])
    ref = {"x": a, "n": torch.tensor([12], dtype=torch.int32)}
    res = {"x": a, "n": torch.tensor([13], dtype=torch.int32)}
    fp64 = {"x": a.double(), "n": torch.tensor([12], dtype=torch.int32)}  # kept an fp16 cast
    better = {"x": a.double(), "n": torch.tensor([13], dtype=torch.int32)}  # upcast it: 12.99 -> 13
    leaves = judge(ref, res, fp64, better, {}, TOL)
    assert [j.output for j in leaves] == ["out['n']"]
    assert leaves[0].how == "reference" and verdict_of(leaves) is Verdict.PASS


def test_verdict_of():
    from torchsmith.oracle.sensitivity import LeafJudgement

    assert verdict_of([LeafJudgement("a", "float", True, "band")]) is Verdict.UNSTABLE
    assert verdict_of([LeafJudgement("a", "float", False)]) is Verdict.MISMATCH
    assert verdict_of([LeafJudgement("a", "nan", False)]) is Verdict.NAN_MISMATCH


# -- properties -----------------------------------------------------------------------------------
floats = st.floats(-1e6, 1e6, allow_nan=False, width=32)


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    values=st.lists(floats, min_size=1, max_size=60),
    seed=st.integers(0, 2**16),
    k=st.integers(1, 4),
)
def test_compiled_equal_to_a_legitimate_run_is_never_a_mismatch(values, seed, k):
    eager = torch.tensor(values, dtype=torch.float32)
    g = torch.Generator().manual_seed(seed)
    runs = {
        f"r{i}": eager + torch.randn(eager.shape, generator=g) * (1 + eager.abs()) * 1e-2
        for i in range(k)
    }
    compiled = runs[f"r{seed % k}"].clone()
    truth = eager.double()
    assert judge_float("out", eager, compiled, truth, runs, TOL).explained
    ints = {name: r.round().to(torch.int64) for name, r in runs.items()}
    assert judge_discrete("out", eager.round().long(), ints[f"r{seed % k}"], None, ints).explained


@settings(max_examples=60, deadline=None, derandomize=True)
@given(values=st.lists(floats, min_size=1, max_size=60), shift=st.floats(1.0, 1e3))
def test_runs_that_never_move_make_any_large_shift_a_mismatch(values, shift):
    eager = torch.tensor(values, dtype=torch.float32)
    compiled = eager + shift * (1 + eager.abs())
    runs = {"a": eager.clone(), "b": eager.clone()}
    j = judge_float("out", eager, compiled, eager.double(), runs, TOL)
    assert not j.explained and j.confidence["score"] >= j.confidence["threshold"]


def test_check_output_shows_the_confidence_in_one_line():
    from torchsmith.report.console import confidence_line

    line = confidence_line(
        {"score": 812.4, "level": "high", "vs_eager": 5000.0, "unexplained_fraction": 0.66}
    )
    assert line.startswith("812x the band") and "(high)" in line and "66%" in line
    flips = confidence_line({"score": 31.0, "level": "medium", "left": 2689, "flips": 3996})
    assert "2689 of 3996 flips" in flips


def test_the_compile_path_run_answers_is_compiling_and_restores_it():
    import torch

    from torchsmith.oracle.probe import CompilePath

    before = torch.compiler.is_compiling
    assert torch.compiler.is_compiling() is False
    with CompilePath():
        assert torch.compiler.is_compiling() is True
        from torch.optim.optimizer import _get_value

        step = torch.tensor(3.0)
        assert _get_value(step) is step  # torch.optim's compile path: the tensor, not .item()
    assert torch.compiler.is_compiling is before and torch.compiler.is_compiling() is False
