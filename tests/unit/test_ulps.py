"""oracle/ulps.py and the precision rules in compare_leaf, on synthetic eager/compiled/fp64."""

import torch

from torchsmith.oracle.compare import compare_leaf
from torchsmith.oracle.ulps import (
    EAGER_MAX_ULPS,
    IMPRECISE_ULPS,
    MISMATCH_ULPS,
    explained_by_runs,
    ulp_error,
)
from torchsmith.verdict import Verdict

TOL = 1e-4


def tiny_erf():
    x = torch.randn(256, generator=torch.Generator().manual_seed(0)) * 1e-20
    return torch.erf(x), torch.erf(x.double())


def nudge(t, ulps):
    """``t`` moved by ``ulps`` ulps of its own dtype."""
    out = t.clone()
    for _ in range(int(ulps)):
        out = torch.nextafter(out, torch.full_like(out, float("inf")))
    return out


def test_ulp_error_counts_spacings_of_the_output_dtype():
    f = torch.tensor([1.0, 1e-20, 3.0], dtype=torch.float64)
    x = nudge(f.float(), 3)
    assert torch.allclose(
        ulp_error(x, f), torch.tensor([3.0, 3.0, 3.0], dtype=torch.float64), atol=0.6
    )


def test_tiny_outputs_off_by_a_relative_error_of_one_are_a_mismatch():
    eager, f64 = tiny_erf()
    compiled = torch.where(torch.arange(256) % 2 == 0, torch.zeros_like(eager), eager)
    assert (compiled - eager).abs().max() < 1e-7  # same() at absolute tolerance sees nothing
    j = compare_leaf("out", eager, compiled, f64, TOL)
    assert j is not None and j.verdict is Verdict.MISMATCH and j.evidence["rule"] == "ulps"
    assert j.evidence["ulps"]["compiled_max_ulps"] >= MISMATCH_ULPS
    assert j.evidence["ulps"]["eager_max_ulps"] <= EAGER_MAX_ULPS


def test_a_modest_ulp_error_is_imprecise_and_rounding_passes():
    eager, f64 = tiny_erf()
    j = compare_leaf("out", eager, nudge(eager, 2 * IMPRECISE_ULPS), f64, TOL)
    assert j is not None and j.verdict is Verdict.IMPRECISE
    assert compare_leaf("out", eager, nudge(eager, 2), f64, TOL) is None


def test_no_ulp_rule_where_eager_is_not_accurate_or_values_are_zero_or_subnormal():
    # a cancelling sum: eager itself is far from fp64 in relative terms at some elements
    g = torch.Generator().manual_seed(1)
    a = torch.randn(64, 512, generator=g)
    eager = a.sum(1) - a.flip(1).sum(1)
    f64 = a.double().sum(1) - a.double().flip(1).sum(1)
    assert compare_leaf("out", eager, eager * 3, f64, TOL) is None
    zero = torch.zeros(8)
    assert compare_leaf("out", zero, zero + 1e-30, torch.zeros(8, dtype=torch.float64), TOL) is None
    sub = torch.full((8,), 1e-40)
    assert compare_leaf("out", sub, sub * 2, sub.double(), TOL) is None


def test_fp64_inf_agreeing_with_compiled_wins_over_a_finite_eager():
    eager = torch.tensor([3.0e7, 2.0, 5.0])
    f64 = torch.tensor([float("inf"), 2.0, 5.0], dtype=torch.float64)
    assert compare_leaf("out", eager, torch.tensor([float("inf"), 2.0, 5.0]), f64, TOL) is None
    # inf where eager and fp64 are finite is still wrong
    finite = eager.double()
    j = compare_leaf("out", eager, torch.tensor([3.0e7, float("inf"), 5.0]), finite, TOL)
    assert j is not None and j.verdict is Verdict.MISMATCH


def test_the_probe_explains_ulp_candidates_only_with_variants_that_reach_them():
    eager, f64 = tiny_erf()
    compiled = nudge(eager, 2000)
    close = {"perturbed1+": nudge(eager, 3), "rounding1+": nudge(eager, 1)}
    ok, figs = explained_by_runs(eager, compiled, f64, close)
    assert not ok and figs["unexplained"] == 256
    far = {"perturbed1+": nudge(eager, 1500)}
    assert explained_by_runs(eager, compiled, f64, far)[0]
