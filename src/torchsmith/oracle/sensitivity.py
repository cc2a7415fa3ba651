"""The sensitivity probe's decisions: is a candidate mismatch a wrong answer, or rounding noise?

PyTorch maintainers close reports that show a difference without showing a wrong answer (1/x near
zero, catastrophic cancellation, fp16 products cast to int). Before a ``mismatch`` or
``nan-mismatch`` stands, the probe (:mod:`torchsmith.oracle.probe`) reruns *eager only* in
variants a correct compiler could have matched: a float64 reference that also upcasts the
program's own casts, fp16/bf16 intermediates in float32 (Inductor's precision), every
near-boundary decision flipped both ways, every rounding done differently (reductions reordered,
results moved by an ulp or two) and inputs perturbed by a few epsilons. This module judges their
outputs, leaf by leaf; it only sees tensors:

- floats: an element is explained when compiled is within ``m`` times the largest deviation from
  the reference any legitimate run shows there (``m`` is ``same()``'s multiplier); if some are
  not, the whole output is judged in units of each element's own spread, as ``same()`` judges
  RMSE, and then the unexplained elements alone as ``same()`` would;
- NaN patterns, integer and bool outputs: a flip is explained when some run also moves there; a
  remainder no larger than sampling noise predicts is explained too, provided there are at least
  ``MIN_SAMPLED`` flips and the runs reproduce at least half.

Everything explained: ``unstable`` (``pass`` where only the better float64 reference was needed).
Otherwise the mismatch stands, with a ``confidence``: compiled's deviation in units of the band.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import torch

from torchsmith.oracle.compare import compare_leaf, flatten
from torchsmith.oracle.ulps import explained_by_runs
from torchsmith.verdict import Verdict

CANDIDATES = tuple(v for v in Verdict if v.is_numeric_mismatch)
MARGIN = 4.0  # boundary runs: decisions within MARGIN * eps of a boundary go the other way
PERTURB_SCALE = 2.0  # perturbed runs: |delta| <= PERTURB_SCALE * eps of each tensor's dtype
PAIRS = 2  # antithetic pairs of perturbed runs to start with
MAX_PAIRS = 6  # more pairs while sampling may still explain the rest
MIN_SAMPLED = 10  # fewer flips than this must each be reproduced by some run
HIGH, MEDIUM = 100.0, 10.0  # confidence levels (score in units of the legitimate band)
_CAP = 1e12


@dataclasses.dataclass
class LeafJudgement:
    """The probe's word on one candidate output leaf."""

    output: str
    kind: str  # float | nan | flip | value
    explained: bool
    how: str = ""  # reference | band | aggregate | boundary | sampling
    figures: dict[str, Any] = dataclasses.field(default_factory=dict)
    confidence: dict[str, Any] | None = None
    inconclusive: bool = False  # more perturbed runs could still explain it

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d.pop("inconclusive")
        return {k: v for k, v in d.items() if v not in (None, "")}


# -- figures -------------------------------------------------------------------------------------
def multiplier(res: torch.Tensor, tol: float) -> float:
    """``same()``'s RMSE multiplier for this output."""
    m = 2.0
    if res.dtype in (torch.float16, torch.bfloat16) or res.numel() < 1000 or tol >= 2e-2:
        m = 3.0
    if res.dim() == 4 and res.shape[-1] == 1 and res.shape[-2] == 1:
        m = 3.0
    return m


def _wide(t: Any) -> torch.Tensor:
    t = torch.as_tensor(t).detach().cpu()
    return t.to(torch.complex128) if t.is_complex() else t.to(torch.float64)


def absdiff(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``|a - b|`` in float64: 0 where equal (infinities of one sign, NaN with NaN), inf where
    only one is NaN."""
    d = torch.sub(a, b)
    d = d.abs() if d.is_complex() else d.abs_()
    d = d.to(torch.float64)
    same = a == b
    same |= torch.isnan(a) & torch.isnan(b)
    return d.masked_fill_(same, 0.0).nan_to_num_(nan=math.inf)


def rmse(d: torch.Tensor) -> float:
    if d.numel() == 0:
        return 0.0
    return float(d.pow(2).mean().sqrt())


def _eps(t: torch.Tensor) -> float:
    if t.is_complex():
        return float(
            torch.finfo(torch.float32 if t.dtype == torch.complex64 else torch.float64).eps
        )
    return float(torch.finfo(t.dtype).eps) if t.is_floating_point() else 0.0


def _ratio(num: float, den: float) -> float:
    if num == 0:
        return 0.0
    if den <= 0 or not math.isfinite(den):
        return _CAP if den <= 0 else 0.0
    return min(num / den, _CAP)


def level(score: float) -> str:
    return "high" if score >= HIGH else "medium" if score >= MEDIUM else "low"


# -- decisions -----------------------------------------------------------------------------------
def coverage(cands: torch.Tensor, moved: dict[str, torch.Tensor]) -> tuple[bool, bool, dict]:
    """Do the runs reproduce the candidate flips? Returns (explained, inconclusive, figures).

    Every flip reproduced by some run: explained. Otherwise the runs' per-position move rates
    ``p_r`` predict ``n * prod(1 - p_r)`` flips left over by chance; a remainder within three
    standard deviations of that is sampling, provided the runs reproduce at least half.
    """
    n = int(cands.sum())
    hit = torch.zeros_like(cands)
    rates = []
    for m in moved.values():
        hit |= cands & m
        rates.append(float((cands & m).sum()) / max(n, 1))
    covered = int(hit.sum())
    left = n - covered
    q = math.prod(1 - p for p in rates) if rates else 1.0
    expected = n * q
    allowed = expected + 3 * math.sqrt(expected * (1 - q))
    majority = 2 * covered >= n
    ok = left == 0 or (n >= MIN_SAMPLED and majority and left <= allowed)
    # Good-Turing: a further legitimate run would flip about (positions exactly one run
    # flips) / (runs) positions no run flipped before; compiled's ``left`` is judged against it.
    counts = torch.stack(list(moved.values())).sum(0) if moved else torch.zeros(1)
    unseen = float((counts == 1).sum()) / max(len(moved), 1)
    figures = {
        "flips": n,
        "reproduced": covered,
        "left": left,
        "expected_left": round(expected, 3),
        "unseen_per_run": round(unseen, 3),
        "runs": len(moved),
    }
    return ok, (not ok and majority), figures


def flip_score(figs: dict[str, Any]) -> float:
    """Flips no run reproduces, in units of what one more legitimate run would leave
    (Good-Turing estimate plus three standard deviations, at least 1)."""
    e = figs["unseen_per_run"]
    return _ratio(figs["left"], max(1.0, e + 3 * math.sqrt(e)))


def judge_discrete(
    path: str, ref: Any, res: Any, base: Any | None, runs: dict[str, Any]
) -> LeafJudgement:
    """Integer, bool (and other exact) outputs: flips the reference or the runs explain."""
    r, c = torch.as_tensor(ref).cpu(), torch.as_tensor(res).cpu()
    cands = r != c
    if base is not None:
        f = torch.as_tensor(base).cpu()
        if f.shape == r.shape:
            f = f.to(r.dtype) if f.dtype != r.dtype else f
            cands = cands & ~((f == c) | (f != r))  # float64 sides with compiled, or not eager
    if not cands.any():
        return LeafJudgement(path, "flip", True, "reference")
    moved = {
        k: torch.as_tensor(v).cpu() != r
        for k, v in runs.items()
        if torch.as_tensor(v).shape == r.shape
    }
    ok, inconclusive, figs = coverage(cands, moved)
    figs["numel"] = r.numel()
    conf = None
    if not ok:
        score = flip_score(figs)
        conf = {"score": round(score, 3), "level": level(score), **figs}
    how = "boundary" if figs["left"] == 0 else "sampling"
    return LeafJudgement(path, "flip", ok, how if ok else "", figs, conf, inconclusive)


def judge_float(
    path: str, ref: Any, res: Any, base: Any | None, runs: dict[str, Any], tol: float
) -> LeafJudgement:
    """Float outputs: NaN pattern first, then values against the band of legitimate runs.

    The runs are visited one at a time with running aggregates (band, matches, sum of
    squares), so memory stays a few output-sized buffers however many runs there are."""
    r, c = _wide(ref), _wide(res)
    b = _wide(base) if base is not None else r
    runs = {k: v for k, v in runs.items() if torch.as_tensor(v).shape == r.shape}
    nan_r, nan_c = torch.isnan(r), torch.isnan(c)
    differ = nan_r ^ nan_c
    nan_figs: dict[str, Any] | None = None
    if differ.any():
        nan_b = torch.isnan(b)
        cands = differ & (nan_c != nan_b) & (nan_r == nan_b) if base is not None else differ
        if cands.any():
            moved = {k: torch.isnan(torch.as_tensor(v).cpu()) != nan_r for k, v in runs.items()}
            ok, inconclusive, nan_figs = coverage(cands, moved)
            if not ok:
                score = flip_score(nan_figs)
                conf = {"score": round(score, 3), "level": level(score), **nan_figs}
                return LeafJudgement(path, "nan", False, "", nan_figs, conf, inconclusive)
    keep = ~differ
    # Where the reference is NaN or inf it says nothing: measure from eager there instead.
    b = torch.where(torch.isfinite(b) | ~torch.isfinite(r), b, r)
    dev = absdiff(c, b)[keep]
    everyone = {"eager": r} | runs

    def legit(v: Any) -> torch.Tensor:
        # A run's non-finite value widens nothing (it would make the band infinite).
        w = _wide(v)
        return torch.where(torch.isfinite(w), absdiff(w, b), torch.zeros_like(b))[keep]

    band = torch.zeros_like(dev)
    sumsq = torch.zeros_like(dev)
    matches = torch.zeros(dev.shape, dtype=torch.bool)
    rmses: dict[str, float] = {}
    for name, v in everyone.items():
        lv = legit(v)
        torch.maximum(band, lv, out=band)
        sumsq.add_(lv.square())
        rmses[name] = rmse(lv)
        # compiled equal to some run, infinities included, is explained outright
        matches |= absdiff(c, _wide(v))[keep] == 0
        del lv
    floor = torch.nan_to_num(_eps(torch.as_tensor(res)) * b.abs()[keep], nan=0.0, posinf=0.0)
    m = multiplier(torch.as_tensor(res), tol)
    left = (dev > m * (band + floor)) & ~matches
    n, k = int(keep.sum()), int(left.sum())
    worst = max(rmses, key=lambda name: rmses[name])
    figs: dict[str, Any] = {
        "numel": n,
        "unexplained": k,
        "multiplier": m,
        "compiled_rmse": rmse(dev),
        "eager_rmse": rmses["eager"],
        "band_rmse": rmses[worst],
        "band_run": worst,
        "runs": len(runs),
    }
    if not all(math.isfinite(figs[f]) for f in ("compiled_rmse", "eager_rmse", "band_rmse")):
        finite = torch.isfinite(dev) & torch.isfinite(band)  # figures for readers: finite part
        figs["finite_only"] = True
        figs["compiled_rmse"] = rmse(dev[finite])
        figs["eager_rmse"] = rmse(legit(r)[finite])
        figs["band_rmse"] = max(rmse(legit(v)[finite]) for v in everyone.values())
    if nan_figs is not None:
        figs["nan"] = nan_figs
    if k == 0:
        return LeafJudgement(path, "float", True, "band", figs)
    # Element by element, a few runs can underestimate the spread: judge the whole output in
    # units of each element's own spread (RMS over the legitimate runs), as same() judges RMSE.
    spread = sumsq.div_(len(everyone)).sqrt_().add_(floor)
    z = torch.where(dev == 0, torch.zeros_like(dev), dev / spread)
    figs["normalized_rmse"] = rmse(z)
    del z, spread
    if figs["normalized_rmse"] <= m:
        return LeafJudgement(path, "float", True, "aggregate", figs)
    dev_u = rmse(dev[left])
    legit_u = max(rmse(legit(v)[left]) for v in everyone.values())
    if dev_u <= m * legit_u + tol / 10:
        return LeafJudgement(path, "float", True, "aggregate", figs)
    unit_u = max(legit_u, rmse(floor[left]))
    unit_all = max(figs["eager_rmse"], rmse(floor))
    score = _ratio(dev_u, unit_u)
    conf = {
        "score": round(score, 3),
        "level": level(score),
        "vs_band": round(score, 3),
        "vs_eager": round(_ratio(figs["compiled_rmse"], unit_all), 3),
        "vs_band_all": round(_ratio(figs["compiled_rmse"], max(figs["band_rmse"], unit_all)), 3),
        "unexplained_fraction": round(k / max(n, 1), 4),
        "threshold": m,
        "runs": len(runs),
    }
    return LeafJudgement(path, "float", False, "", figs, conf, inconclusive=2 * k <= n)


def leaf_map(obj: Any, prefix: str) -> dict[str, Any] | None:
    if obj is None:
        return None
    return dict(flatten(obj, prefix))


def _is_float(x: Any) -> bool:
    return isinstance(x, float) or (
        isinstance(x, torch.Tensor) and (x.is_floating_point() or x.is_complex())
    )


def _usable_reference(x: Any, like: Any) -> bool:
    if not isinstance(x, torch.Tensor | int | float | bool):
        return False
    t, s = torch.as_tensor(x), torch.as_tensor(like)
    if t.shape != s.shape:
        return False
    return t.dtype in (torch.float64, torch.complex128) if _is_float(like) else True


def judge(
    ref: Any,
    res: Any,
    fp64: Any | None,
    reference: Any | None,
    runs: dict[str, Any],
    tol: float,
    prefix: str = "out",
) -> list[LeafJudgement]:
    """The probe's judgement of every leaf ``compare`` fails, given the probe runs' outputs.

    ``reference`` is the float64 run with the program's own casts upcast (or None); ``runs``
    maps run names to outputs structured like ``ref``.
    """
    refs, ress = flatten(ref, prefix), flatten(res, prefix)
    fp64s, better = leaf_map(fp64, prefix), leaf_map(reference, prefix)
    run_leaves = {k: leaf_map(v, prefix) or {} for k, v in runs.items()}
    out: list[LeafJudgement] = []
    for (path, a), (_, b) in zip(refs, ress, strict=True):
        f = fp64s.get(path) if fp64s else None
        j = compare_leaf(path, a, b, f, tol)
        if j is None:
            continue
        if j.verdict not in CANDIDATES or not isinstance(a, torch.Tensor | int | float | bool):
            out.append(LeafJudgement(path, "value", False, figures={"verdict": j.verdict.value}))
            continue
        g = better.get(path) if better else None
        base = g if _usable_reference(g, a) else f if _usable_reference(f, a) else None
        if g is not None and base is g and compare_leaf(path, a, b, g, tol) is None:
            out.append(LeafJudgement(path, "float" if _is_float(a) else "flip", True, "reference"))
            continue
        leaf_runs = {k: v[path] for k, v in run_leaves.items() if path in v}
        leaf_runs = {
            k: v for k, v in leaf_runs.items() if isinstance(v, torch.Tensor | int | float)
        }
        if j.evidence.get("rule") == "ulps":  # a relative-precision candidate: judged in ulps
            ok, figs = explained_by_runs(a, b, base if base is not None else f, leaf_runs)
            out.append(LeafJudgement(path, "float", ok, "band" if ok else "", figs))
            continue
        if _is_float(a):
            out.append(judge_float(path, a, b, base, leaf_runs, tol))
        else:
            out.append(judge_discrete(path, a, b, base, leaf_runs))
    return out


def verdict_of(leaves: list[LeafJudgement]) -> Verdict:
    bad = [j for j in leaves if not j.explained]
    if bad:
        return Verdict.NAN_MISMATCH if any(j.kind == "nan" for j in bad) else Verdict.MISMATCH
    if all(j.how == "reference" for j in leaves):
        return Verdict.PASS
    return Verdict.UNSTABLE


def explain(j: LeafJudgement) -> str:
    """One line on why a leaf is explained."""
    f = j.figures
    if j.how == "reference":
        return (
            f"{j.output}: no further from a float64 run that also upcasts the program's own"
            " low-precision casts than eager is"
        )
    if j.kind == "float" and "compiled_rmse" not in f:  # judged in ulps (oracle/ulps.py)
        u = f.get("ulps", f)
        return (
            f"{j.output}: compiled's error in ulps ({u.get('compiled_max_ulps', '?')}) is within"
            f" reach of eager with rounding-sized changes ({u.get('band_max_ulps', '?')} ulps)"
        )
    if j.kind == "float":
        nan = f.get("nan")
        return (
            f"{j.output}: compiled is off the reference by RMSE {f['compiled_rmse']:.3g} (eager"
            f" {f['eager_rmse']:.3g}), within {f['multiplier']:g}x of what eager itself does under"
            f" rounding-sized changes (up to RMSE {f['band_rmse']:.3g}, run {f['band_run']})"
            + (
                f"; its NaN pattern differs at {nan['flips']} positions, {nan['reproduced']} of"
                " which eager also flips"
                if nan
                else ""
            )
        )
    what = "NaN pattern" if j.kind == "nan" else "values"
    return (
        f"{j.output}: {f['flips']} {what} flip at rounding boundaries or ties: eager crosses"
        f" {f['reproduced']} of them under rounding-sized changes ({f['runs']} runs)"
        + (f", {f['left']} left within sampling noise" if f["left"] else "")
    )
