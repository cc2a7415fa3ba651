"""The numerical oracle: is the compiled output wrong, judged as PyTorch maintainers judge it?

One place checks structure, shape, dtype, NaN pattern and values (forward outputs and, when
asked, gradients), in that order, tinygrad-style. Float values go through
``torch._dynamo.utils.same(ref, res, fp64_ref)`` at PyTorch's default tolerance: compiled may
differ from eager by any amount as long as it is not much further from the float64 run than
eager is. Non-float outputs (casts to int, comparisons, argmax) flip at rounding boundaries, so a
flip only counts when the float64 run sides with eager against compiled.

Runs inside workers: it compares tensors the program produced. Outputs of any structure (HF
``ModelOutput``, caches, dataclasses, objects) are walked by :mod:`torchsmith.oracle.outputs`.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import torch

from torchsmith.oracle.outputs import difference, flatten, structure
from torchsmith.oracle.ulps import ulp_judgement
from torchsmith.verdict import (
    IMPRECISE_MIN_EPS,
    IMPRECISE_MIN_NUMEL,
    IMPRECISE_RATIO,
    WRONG_OUTPUT_ORDER,
    Verdict,
)

Leaf = tuple[str, Any]


@dataclasses.dataclass
class Judgement:
    verdict: Verdict
    reason: str = ""
    evidence: dict[str, Any] = dataclasses.field(default_factory=dict)


def _describe(x: Any) -> str:
    """``Tensor[2, 3] float32``; a tensor subclass by its own name (``Scaled[2] float32``)."""
    if isinstance(x, torch.Tensor):
        kind = "Tensor" if type(x) in (torch.Tensor, torch.nn.Parameter) else type(x).__name__
        return f"{kind}{list(x.shape)} {str(x.dtype).removeprefix('torch.')}"
    return type(x).__name__


def _as_tensor(x: Any) -> torch.Tensor:
    if isinstance(x, torch.Tensor):
        return x
    return torch.tensor(x, dtype=torch.float64 if isinstance(x, float) else None)


def _layout(t: torch.Tensor) -> tuple[tuple[int, int], ...]:
    """Size and stride of the dims that matter for layout (size > 1)."""
    return tuple((n, st) for n, st in zip(t.shape, t.stride(), strict=True) if n > 1)


def _dense(t: torch.Tensor) -> bool:
    """Non-overlapping and dense: its strides are a permutation of a contiguous layout's."""
    expected = 1
    for stride, size in sorted((st, n) for n, st in zip(t.shape, t.stride(), strict=True) if n > 1):
        if stride != expected:
            return False
        expected *= size
    return True


def stride_mismatch(path: str, ref: torch.Tensor, res: torch.Tensor) -> Judgement | None:
    """Eager and compiled both return a dense, non-overlapping tensor but lay it out
    differently (strides of dims larger than 1 differ): Inductor keeps eager's output strides
    by contract (``keep_output_stride``), and code downstream (``.view``, a C extension, a
    channels-last consumer) depends on them."""
    if ref.layout != torch.strided or res.layout != torch.strided or ref.numel() < 2:
        return None
    if not (_dense(ref) and _dense(res)):
        return None
    if _layout(ref) == _layout(res):
        return None
    return Judgement(
        Verdict.META_MISMATCH,
        f"{path}: eager returns strides {tuple(ref.stride())}, compiled {tuple(res.stride())}"
        f" for shape {list(ref.shape)}",
        {
            "output": path,
            "eager": str(tuple(ref.stride())),
            "compiled": str(tuple(res.stride())),
            "kind": "strides",
        },
    )


def error_figures(ref: torch.Tensor, res: torch.Tensor, fp64: torch.Tensor | None) -> dict:
    """Max abs / max rel / RMSE of eager and compiled against fp64 (or of compiled vs eager)."""
    ref64, res64 = ref.detach().double().cpu(), res.detach().double().cpu()
    out: dict[str, Any] = {"numel": ref.numel()}
    base = fp64.detach().double().cpu() if fp64 is not None else None

    def figs(a: torch.Tensor, b: torch.Tensor) -> dict[str, float]:
        finite = torch.isfinite(a) & torch.isfinite(b)
        if not finite.any():
            return {"max_abs": 0.0, "max_rel": 0.0, "rmse": 0.0}
        d = (a - b).abs()[finite]
        rel = d / b.abs()[finite].clamp_min(1e-12)
        return {
            "max_abs": float(d.max()),
            "max_rel": float(rel.max()),
            "rmse": float(d.pow(2).mean().sqrt()),
        }

    if base is not None:
        out["compiled_vs_fp64"] = figs(res64, base)
        out["eager_vs_fp64"] = figs(ref64, base)
    out["compiled_vs_eager"] = figs(res64, ref64)
    return out


def _nan_judgement(
    path: str, ref: torch.Tensor, res: torch.Tensor, fp64: torch.Tensor | None
) -> tuple[Judgement | None, torch.Tensor]:
    """Compare NaN patterns. Returns a failure, or the positions explained by fp64 to ignore."""
    nan_ref, nan_res = torch.isnan(ref), torch.isnan(res)
    differ = nan_ref ^ nan_res
    if not differ.any():
        return None, differ
    if fp64 is None:
        culprit = differ
    else:
        nan64 = torch.isnan(fp64.cpu())
        # Compiled is wrong where it disagrees with fp64 while eager agrees with fp64.
        culprit = differ & (nan_res.cpu() != nan64) & (nan_ref.cpu() == nan64)
    if culprit.any():
        idx = [int(i) for i in culprit.nonzero()[0]] if culprit.dim() else []
        return (
            Judgement(
                Verdict.NAN_MISMATCH,
                f"{path}: compiled has NaN at {int(culprit.sum())} position(s) where eager"
                + (" and fp64 do not" if fp64 is not None else " does not")
                + " (or the reverse)",
                {
                    "output": path,
                    "positions": int(culprit.sum()),
                    "first_index": idx,
                    "compiled_nan": int(nan_res.sum()),
                    "eager_nan": int(nan_ref.sum()),
                    "fp64_nan": int(torch.isnan(fp64).sum()) if fp64 is not None else None,
                },
            ),
            differ,
        )
    return None, differ


def _compare_nonfloat(
    path: str, ref: torch.Tensor, res: torch.Tensor, fp64: torch.Tensor | None
) -> Judgement | None:
    differ = ref.cpu() != res.cpu()
    if not differ.any():
        return None
    n = int(differ.sum())
    if fp64 is not None and fp64.shape == ref.shape:
        f = fp64.cpu().to(ref.dtype) if fp64.dtype != ref.dtype else fp64.cpu()
        # A flip is explained when fp64 agrees with compiled, or eager also disagrees with fp64.
        explained = (f == res.cpu()) | (f != ref.cpu())
        unexplained = differ & ~explained
        if not unexplained.any():
            return None
        n = int(unexplained.sum())
        differ = unexplained
    first = [int(i) for i in differ.nonzero()[0]] if differ.dim() else []
    sel = tuple(first) if first else ()
    return Judgement(
        Verdict.MISMATCH,
        f"{path}: {n} of {ref.numel()} {str(ref.dtype).removeprefix('torch.')} values differ"
        f" (e.g. at {first}: eager {ref.cpu()[sel].item()}, compiled {res.cpu()[sel].item()}"
        + (f", fp64 {fp64.cpu()[sel].item()}" if fp64 is not None else "")
        + ") and float64 sides with eager",
        {"output": path, "differ": n, "numel": ref.numel(), "first_index": first},
    )


def _same_split(
    ref: torch.Tensor, res: torch.Tensor, f64: torch.Tensor, tol: float, log_error: Any
) -> bool:
    """``same(ref, res, f64)`` where every position has finite values to judge by.

    A NaN or inf in one of the RMSEs makes ``same()`` pass anything, so: positions where eager
    and compiled agree on a NaN or inf are left out, and so are positions where compiled gives
    float64's own inf (a singular matrix's ``cond``: fp64 and compiled inf, eager a large finite
    number; the better reference wins); where float64 is not finite but eager is,
    compiled is judged against eager alone; where eager is inf but float64 finite, against
    float64 alone; the rest as usual.
    """
    from torch._dynamo.utils import same

    r, c, f = ref.detach().cpu(), res.detach().cpu(), f64.detach().cpu()
    fin_r, fin_f = torch.isfinite(r), torch.isfinite(f)
    if bool(fin_r.all()) and bool(fin_f.all()):  # the usual case: no masks, no copies
        return same(r, c, f, tol=tol, equal_nan=True, log_error=log_error)
    agree = ~fin_r & ((r == c) | (torch.isnan(r) & torch.isnan(c)))
    agree |= ~fin_f & (c.to(f.dtype) == f)  # compiled gives fp64's inf: fp64 wins over eager
    unref = ~fin_f & fin_r & ~agree
    no_eager = ~fin_r & fin_f & ~agree
    rest = ~(agree | unref | no_eager)
    checks = [
        (unref, lambda m: same(r[m], c[m], None, tol=tol, equal_nan=True, log_error=log_error)),
        (no_eager, lambda m: same(f[m].to(r.dtype), c[m], None, tol=tol, log_error=log_error)),
        (rest, lambda m: same(r[m], c[m], f[m], tol=tol, equal_nan=True, log_error=log_error)),
    ]
    return all(fn(mask) for mask, fn in checks if mask.any())


def compare_leaf(
    path: str, ref: Any, res: Any, fp64: Any, tol: float, seen: dict[str, Any] | None = None
) -> Judgement | None:
    """Judge one output leaf; None when it passes. ``seen`` collects, for passing float leaves
    judged against fp64, the precision figures of the least precise one (``precision_max``)."""
    from torch._dynamo.utils import same

    numbers = (int, float)
    if type(ref) is not type(res) and not (type(ref) in numbers and type(res) in numbers):
        return Judgement(
            Verdict.META_MISMATCH,
            f"{path}: eager gives {_describe(ref)}, compiled {_describe(res)}",
            {"output": path, "eager": _describe(ref), "compiled": _describe(res)},
        )
    if not isinstance(ref, torch.Tensor | float):
        if ref == res:
            return None
        return Judgement(
            Verdict.MISMATCH,
            f"{path}: eager gives {ref!r}, compiled {res!r}",
            {"output": path, "eager": repr(ref), "compiled": repr(res)},
        )
    ref_t, res_t = _as_tensor(ref), _as_tensor(res)
    f64 = _as_tensor(fp64) if isinstance(fp64, torch.Tensor | float | int) else None
    if f64 is not None and f64.shape != ref_t.shape:
        f64 = None
    if ref_t.shape != res_t.shape or ref_t.dtype != res_t.dtype:
        return Judgement(
            Verdict.META_MISMATCH,
            f"{path}: eager gives {_describe(ref_t)}, compiled {_describe(res_t)}",
            {"output": path, "eager": _describe(ref_t), "compiled": _describe(res_t)},
        )
    # A layout difference is reported when the values agree; wrong values outrank it.
    stride = stride_mismatch(path, ref_t, res_t)
    if ref_t.is_meta or res_t.is_meta:  # no values to judge: shape and dtype agreed
        return stride
    if not (ref_t.is_floating_point() or ref_t.is_complex()):
        return _compare_nonfloat(path, ref_t, res_t, f64) or stride
    nan_fail, nan_differ = _nan_judgement(path, ref_t, res_t, f64)
    if nan_fail is not None:
        return nan_fail
    if nan_differ.any():  # explained NaN differences: judge the remaining positions only
        keep = ~nan_differ
        ref_t, res_t = ref_t[keep], res_t[keep]
        f64 = f64[keep.to(f64.device)] if f64 is not None else None
    if f64 is not None and f64.dtype != torch.float64:
        f64 = None  # an output the fp64 run did not compute in float64 is no reference
    messages: list[str] = []

    def log_error(msg: str, *args: Any) -> None:
        messages.append(msg % args if args else msg)

    if f64 is not None:
        ok = _same_split(ref_t, res_t, f64, tol, log_error)
    else:
        ok = same(ref_t, res_t, None, tol=tol, equal_nan=True, log_error=log_error)
    if ok:
        if stride is not None:
            return stride
        if f64 is None:
            return None
        ulp = ulp_judgement(path, ref_t, res_t, f64)  # tiny values: relative precision
        if ulp is not None:
            ulp[2]["precision"] = precision_figures(ref_t, res_t, f64)
            return Judgement(*ulp)
        return precision_loss(path, ref_t, res_t, f64, seen)
    figs = error_figures(ref_t, res_t, f64)
    if f64 is not None:
        c, e = figs["compiled_vs_fp64"], figs["eager_vs_fp64"]
        reason = (
            f"{path}: compiled is off fp64 by max abs {c['max_abs']:.3g} (RMSE {c['rmse']:.3g}),"
            f" eager by {e['max_abs']:.3g} (RMSE {e['rmse']:.3g})"
        )
    else:
        c = figs["compiled_vs_eager"]
        reason = f"{path}: compiled differs from eager by max abs {c['max_abs']:.3g} (no fp64 run)"
    inf_at = torch.isinf(res_t.cpu()) & torch.isfinite(ref_t.cpu())
    if f64 is not None:  # where fp64 is that same inf, compiled is right (see _same_split)
        inf_at &= res_t.cpu().to(torch.float64) != f64.cpu()
    inf = int(inf_at.sum())
    if inf:  # the figures above cover finite values only
        figs["compiled_inf"] = inf
        reason += f"; compiled is inf at {inf} position(s) where eager is finite"
    return Judgement(
        Verdict.MISMATCH,
        reason,
        {"output": path, "figures": figs, "same_log": messages[-3:], "tol": tol},
    )


def precision_figures(ref: torch.Tensor, res: torch.Tensor, f64: torch.Tensor) -> dict[str, float]:
    """RMSE of eager and compiled against fp64 over finite positions, their ratio, and
    compiled's RMSE in units of the output dtype's eps relative to the output's RMS.

    Linear in the output's size, with one float64 temporary at a time (outputs of 10^7 values
    are judged in about a second)."""
    r, c, f = ref.detach().cpu(), res.detach().cpu(), f64.detach().cpu()
    fin = torch.isfinite(r) & torch.isfinite(c) & torch.isfinite(f)
    n = int(fin.sum())
    if n == 0:
        return {"ratio": 0.0, "eps_units": 0.0, "numel": 0}
    mask = None if n == fin.numel() else fin

    def rms(x: torch.Tensor) -> float:
        if mask is not None:
            x = torch.where(mask, x, 0.0)
        return float(torch.linalg.vector_norm(x, dtype=torch.float64)) / math.sqrt(n)

    e_rmse, c_rmse, scale = rms(r - f), rms(c - f), rms(f) or 1.0
    eps = torch.finfo(ref.dtype).eps if ref.is_floating_point() else 1.0
    ratio = c_rmse / e_rmse if e_rmse > 0 else (float("inf") if c_rmse > 0 else 0.0)
    return {
        "eager_rmse": e_rmse,
        "compiled_rmse": c_rmse,
        "ratio": ratio,
        "eps_units": c_rmse / (scale * eps),
        "numel": n,
    }


def precision_loss(
    path: str,
    ref: torch.Tensor,
    res: torch.Tensor,
    f64: torch.Tensor,
    seen: dict[str, Any] | None = None,
) -> Judgement | None:
    """``imprecise`` when compiled passes ``same()`` but is much further from fp64 than eager,
    on a large enough output, by a margin no few-ulp difference reaches (thresholds above,
    chosen by measurement: ``bench/imprecise.py``); None otherwise."""
    if ref.numel() < IMPRECISE_MIN_NUMEL or not ref.is_floating_point():
        return None
    figs = precision_figures(ref, res, f64)
    if seen is not None and figs["ratio"] > seen.get("precision_max", {}).get("ratio", -1.0):
        seen["precision_max"] = {"output": path, **figs}
    if (
        figs["numel"] < IMPRECISE_MIN_NUMEL
        or figs["ratio"] < IMPRECISE_RATIO
        or figs["eps_units"] < IMPRECISE_MIN_EPS
    ):
        return None
    return Judgement(
        Verdict.IMPRECISE,
        f"{path}: compiled passes same() but is {figs['ratio']:.3g}x further from fp64 than"
        f" eager (RMSE {figs['compiled_rmse']:.3g} vs {figs['eager_rmse']:.3g}) over"
        f" {figs['numel']} values",
        {"output": path, "precision": figs},
    )


def compare(ref: Any, res: Any, fp64: Any | None, tol: float, prefix: str = "out") -> Judgement:
    """Judge compiled outputs ``res`` against eager ``ref`` with the float64 run ``fp64``."""
    ref_leaves, res_leaves = flatten(ref, prefix), flatten(res, prefix)
    fp64_leaves = flatten(fp64, prefix) if fp64 is not None else None
    s_ref, s_res = structure(ref), structure(res)
    if [p for p, _ in ref_leaves] != [p for p, _ in res_leaves] or s_ref != s_res:
        return Judgement(
            Verdict.META_MISMATCH,
            f"{prefix}: output structure differs: eager returns {s_ref[:200]}, compiled"
            f" {s_res[:200]}",
            {"eager": s_ref[:2000], "compiled": s_res[:2000], "output": prefix},
        )
    if fp64_leaves is not None and [p for p, _ in fp64_leaves] != [p for p, _ in ref_leaves]:
        fp64_leaves = None
    failures: list[Judgement] = []
    seen: dict[str, Any] = {}
    for i, ((path, a), (_, b)) in enumerate(zip(ref_leaves, res_leaves)):
        f = fp64_leaves[i][1] if fp64_leaves is not None else None
        j = compare_leaf(path, a, b, f, tol, seen)
        if j is not None:
            failures.append(j)
    if not failures:
        return Judgement(Verdict.PASS, evidence=seen)
    failures.sort(key=lambda j: WRONG_OUTPUT_ORDER.index(j.verdict))
    first = failures[0]
    first.evidence["failing_outputs"] = [j.evidence.get("output") for j in failures]
    return first


def identical(a: Any, b: Any) -> bool:
    """Bitwise equality of two runs (NaN equal to NaN): the nondeterminism test
    (:func:`torchsmith.oracle.outputs.difference` says where and by how much they differ)."""
    return difference(a, b) is None
