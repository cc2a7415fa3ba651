"""Relative precision in ulps: tiny outputs of accurate functions judged against float64.

``same()`` judges at an absolute tolerance, so ``erf(1e-20)`` compiled as ``0`` or ``2e-20``
(relative error up to 1) passes: the absolute error is below ``1e-7``. Functions such as
``erf``, ``erfinv``, ``expm1``, ``log1p``, ``sin`` are accurate in *relative* terms near zero
(and near their poles), and eager is: measured against float64, eager stays within an ulp.

**The rule** (:func:`ulp_judgement`), for float32/float16/bfloat16 outputs with a float64 run,
over the elements where eager, compiled and float64 are finite and float64 is a normal number
of the output dtype (no zeros, no subnormals: FMA-sized cancellations and denormal flushing
belong to the absolute rule):

1. eager must be accurate at *every* such element: at most ``EAGER_MAX_ULPS`` ulps from float64.
   An output eager itself gets wrong in relative terms somewhere (a sum that cancels, a matmul,
   ``x - mean``) is ill-conditioned as computed, and no ulp rule applies to it;
2. then compiled ``MISMATCH_ULPS`` or more ulps from float64 at some element is ``mismatch``,
   ``IMPRECISE_ULPS`` or more ``imprecise``.

An ulp is the spacing of the output dtype at float64's value. Candidates go through the
sensitivity probe, judged in ulps too (:func:`explained_by_runs`): a candidate stands only when
no eager variant (reordered roundings, inputs moved by a few eps) comes within
``PROBE_RATIO`` of compiled's ulp error at the elements in question.

**Thresholds (measured, torch 2.13 CPU, Inductor C++ vectorized).** Unary ``erf erfinv erfc
expm1 log1p sin tanh sinh asin atan tan sigmoid exp log gelu silu`` on tiny (1e-30 .. 1e-4),
near-one (0.9 .. 1 - 1e-7) and ``randn`` inputs (4096): eager's largest error anywhere was 1.8
ulps (sigmoid; gelu's 1.4e4 on randn is cancellation, excluded by rule 1); compiled's, where
eager was accurate, 4.1 ulps or less except ``erf`` (1.4e7 on tiny inputs, 2.9e3 on randn),
``expm1`` (1.2e7 tiny, 983 randn) and ``erfinv`` near one (107). ``EAGER_MAX_ULPS`` = 4 is
twice eager's worst; ``IMPRECISE_ULPS`` = 128 is 30x the worst correct compiled kernel and
above the 66-ulp ``erf`` (relative error 7e-6) that ``bench/false_alarms.py --edge-values``
flagged at 64: a loss same() passes and maintainers would not take, so not a finding;
``MISMATCH_ULPS`` = 1024 is where the relative error of a float32 result passes 1e-4 (same()'s
tolerance read as relative).
"""

from __future__ import annotations

from typing import Any

import torch

from torchsmith.verdict import ULPS_EAGER_MAX, ULPS_IMPRECISE, ULPS_MISMATCH, Verdict

EAGER_MAX_ULPS = ULPS_EAGER_MAX
IMPRECISE_ULPS = ULPS_IMPRECISE
MISMATCH_ULPS = ULPS_MISMATCH
PROBE_RATIO = 4.0
_DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def ulp_error(x: torch.Tensor, f64: torch.Tensor) -> torch.Tensor:
    """``|x - f64|`` in ulps of ``x``'s dtype at ``f64`` (float64; magnitudes below the
    dtype's smallest normal number measured at it)."""
    fi = torch.finfo(x.dtype)
    f = f64.detach().cpu().double()
    _, exp = torch.frexp(f.abs().clamp_min(fi.tiny))
    spacing = torch.ldexp(torch.full_like(f, fi.eps), exp - 1)
    return (x.detach().cpu().double() - f).abs() / spacing


def judged(ref: torch.Tensor, res: torch.Tensor, f64: torch.Tensor) -> torch.Tensor | None:
    """The elements the rule judges (a bool mask), or None when it judges nothing."""
    if ref.dtype not in _DTYPES or f64.dtype != torch.float64 or ref.shape != f64.shape:
        return None
    fi = torch.finfo(ref.dtype)
    f = f64.detach().cpu()
    a = f.abs()
    mask = torch.isfinite(ref.cpu()) & torch.isfinite(res.cpu()) & (a >= fi.tiny) & (a <= fi.max)
    return mask if bool(mask.any()) else None


def ulp_figures(ref: torch.Tensor, res: torch.Tensor, f64: torch.Tensor) -> dict[str, Any] | None:
    """Eager's and compiled's largest ulp errors over the judged elements, with the worst
    element's values; None when nothing is judged."""
    mask = judged(ref, res, f64)
    if mask is None:
        return None
    e = ulp_error(ref, f64)[mask]
    c = ulp_error(res, f64)[mask]
    i = int(c.argmax())
    rel = (res.detach().cpu().double()[mask] - f64.cpu()[mask]).abs() / f64.cpu()[mask].abs()
    return {
        "eager_max_ulps": float(e.max()),
        "compiled_max_ulps": float(c[i]),
        "compiled_max_rel": float(rel.max()),
        "judged": int(mask.sum()),
        "worst": {
            "eager": float(ref.detach().cpu()[mask][i]),
            "compiled": float(res.detach().cpu()[mask][i]),
            "fp64": float(f64.cpu()[mask][i]),
        },
    }


def ulp_judgement(
    path: str, ref: torch.Tensor, res: torch.Tensor, f64: torch.Tensor
) -> tuple[Verdict, str, dict[str, Any]] | None:
    """``(mismatch or imprecise, reason, evidence)`` when eager is accurate in ulps everywhere
    and compiled is not; None otherwise."""
    figs = ulp_figures(ref, res, f64)
    if figs is None or figs["eager_max_ulps"] > EAGER_MAX_ULPS:
        return None
    c = figs["compiled_max_ulps"]
    if c < IMPRECISE_ULPS:
        return None
    verdict = Verdict.MISMATCH if c >= MISMATCH_ULPS else Verdict.IMPRECISE
    w = figs["worst"]
    reason = (
        f"{path}: compiled is {c:.3g} ulps from fp64 (relative error {figs['compiled_max_rel']:.3g};"
        f" e.g. compiled {w['compiled']:.6g}, eager {w['eager']:.6g}, fp64 {w['fp64']:.6g}),"
        f" eager at most {figs['eager_max_ulps']:.3g} ulps anywhere"
    )
    return verdict, reason, {"output": path, "rule": "ulps", "ulps": figs}


def explained_by_runs(
    ref: Any, res: Any, base: Any, runs: dict[str, Any]
) -> tuple[bool, dict[str, Any]]:
    """The probe's word on an ulp candidate: is compiled's ulp error within ``PROBE_RATIO``
    times what some eager variant shows at every element where compiled is past the
    imprecise threshold? Returns (explained, figures)."""
    r, c, f = torch.as_tensor(ref), torch.as_tensor(res), torch.as_tensor(base)
    mask = judged(r, c, f) if f.dtype == torch.float64 else None
    if mask is None:
        return True, {"ulps": "no element to judge"}
    cu = ulp_error(c, f)[mask]
    band = ulp_error(r, f)[mask]
    for v in runs.values():
        t = torch.as_tensor(v)
        if t.shape == r.shape and t.is_floating_point():
            u = torch.nan_to_num(ulp_error(t.to(r.dtype), f)[mask], nan=0.0, posinf=0.0)
            torch.maximum(band, u, out=band)
    bad = cu > torch.clamp_min(band * PROBE_RATIO, IMPRECISE_ULPS)
    figs = {
        "compiled_max_ulps": float(cu.max()),
        "band_max_ulps": float(band.max()),
        "unexplained": int(bad.sum()),
        "runs": len(runs),
    }
    return not bool(bad.any()), figs
