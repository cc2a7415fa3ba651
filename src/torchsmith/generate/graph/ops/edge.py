"""Specs drawn only by edge-value programs (``values=edge``; see ``generate/edges.py`` and
``notes/edge-values.md``): each builds one behaviour at the edge that the written policy calls a
bug when eager and compiled disagree. Results that hold NaN/inf or wrapped integers go straight to
an output (:meth:`Builder.emit_sink`): nothing downstream may consume them, which is what keeps
them on the BUG side (row 5's "only through add/sub/mul", rows 10/11's NaN mask).
"""

from __future__ import annotations

import math

import torch

from torchsmith.generate.graph.spec import need, op
from torchsmith.generate.graph.values import INT_RANGE, Reject, Val, dtype_name, fits, fmt

_F32_64 = ("float32", "float64")
_SPECIAL = ('float("nan")', 'float("inf")', '-float("inf")')


def _mask(x: Val, k: int) -> str:
    """A bool mask of ``x``'s shape that holds every ``k``-th element: independent of the
    values, so eager and compiled mark the same elements whatever rounding did upstream."""
    return f"(torch.arange({x.numel}).reshape({tuple(x.shape)}) % {k} == 0)"


@op("edge_special", "edge", edge=True, dtypes=_F32_64, weight=6.0)
def _special(b, x: Val) -> None:
    """NaN or +-inf planted in ``x``, then an op whose result eager defines for them: max/min
    and their reductions, clamp, sort, cummax, softmax, relu, sums, x*0, x-x (rows 10, 11)."""
    sv = b.rng.choice(_SPECIAL)
    xs = f"{x.name}.masked_fill({_mask(x, b.rng.choice([2, 3, 5]))}, {sv})"
    d = b.rng.randrange(x.rank) if x.rank else None
    dim = f", dim={d}" if d is not None else ""
    forms = [
        f"torch.amax({xs}{dim})",
        f"torch.amin({xs}{dim})",
        f"{xs}.max()",
        f"{xs}.min()",
        f"torch.clamp({xs}, {fmt(round(x.lo / 2, 2))}, {fmt(round(x.hi / 2, 2))})",
        f"{xs}.clamp(min={fmt(round(x.lo / 2, 2))})",
        f"torch.relu({xs})",
        f"torch.nn.functional.hardtanh({xs})",
        f"{xs}.sum({d if d is not None else ''})",
        f"{xs} * 0",
        f"{xs} * 0.0",
        f"{xs} - {xs}",
        f"torch.nan_to_num({xs})",
    ]
    if d is not None:
        forms += [
            f"torch.max({xs}, dim={d}).values",
            f"torch.min({xs}, dim={d}).values",
            f"torch.sort({xs}, dim={d}).values",
            f"torch.sort({xs}, dim={d}, descending=True).values",
            f"torch.cummax({xs}, dim={d}).values",
            f"torch.softmax({xs}, dim={d})",
            f"torch.topk({xs}, 1, dim={d}).values",
        ]
    y = b.operand(x.shape, x.dtype, avoid=x)
    forms += [
        f"torch.maximum({xs}, {y.name})",
        f"torch.minimum({xs}, {y.name})",
        f"torch.fmax({xs}, {y.name})",
    ]
    if sv != 'float("nan")':  # a finite dividend over +-inf (#198057's vector remainder)
        forms.append(f"torch.remainder({y.name}, {xs})")
    b.emit_sink(b.rng.choice(forms), tag="special")


@op("edge_wrap", "edge", edge=True, dtypes=("int32", "int64"), weight=3.0)
def _wrap(b, x: Val) -> None:
    """int32/int64 add/sub/mul past INT_MAX or INT_MIN (row 5: defined two's-complement wrap
    when the result reaches the output only through add/sub/mul)."""
    top = int(INT_RANGE[x.dtype][1])
    need(x.absmax >= 2, "nothing would cross the edge")
    k = int(b.rng.uniform(0.2, 0.8) * x.hi) if x.hi >= 2 else 0
    forms = [
        f"{x.name} + {top - k}",
        f"{x.name} - {top - k}",
        f"{top - k} + {x.name}",
        f"{x.name} * {2 ** (int(math.log2(top)) - 2) + 1}",
        f"({x.name} + {top - k}) * 2",
    ]
    b.emit_sink(b.rng.choice(forms), tag="wrap")


@op("edge_uint8_wrap", "edge", edge=True, dtypes=("uint8",), weight=2.0)
def _uint8_wrap(b, x: Val) -> None:
    """uint8 arithmetic that wraps (row 4, defined): the result stays usable, over [0, 255]."""
    form = b.rng.choice(
        [f"{x.name} + 200", f"{x.name} * 3", f"200 - {x.name}", f"-{x.name}", f"-{x.name}.abs()"]
    )
    b.emit(form, x.shape, "uint8", 0.0, 255.0, tag="wrapu8", exact=True)


@op("edge_empty", "edge", edge=True, dtypes=_F32_64, ranks=(1, 5), weight=2.0)
def _empty(b, x: Val) -> None:
    """A reduction over a dim of size 0 (row 21: sum 0, prod 1, mean/var/std NaN, logsumexp
    -inf, amax raises in both)."""
    d = b.rng.randrange(x.rank)
    e = f"{x.name}.narrow({d}, 0, 0)"
    form = b.rng.choice(
        [
            f"{e}.sum(dim={d})",
            f"{e}.prod(dim={d})",
            f"{e}.mean(dim={d})",
            f"torch.var({e}, dim={d})",
            f"torch.std({e}, dim={d})",
            f"torch.stack(torch.var_mean({e}, dim={d}))",
            f"torch.stack(torch.std_mean({e}, dim={d}))",
            f"torch.logsumexp({e}, dim={d})",
            f"torch.linalg.vector_norm({e}, dim={d})",
            f"{e}.sum()",
            f"{e}.mean()",
            f"{e}.prod()",
            f"torch.cumsum({e}, dim={d})",
        ]
    )
    b.emit_sink(form, tag="empty")


#: (accepts, expression, range from (lo, hi), exact) of the 0-dim / Python scalar forms.
_PROMOTE = (
    (lambda v: v.is_int, "torch.clamp({x}, min=-0.5, max=0.5)",
     lambda lo, hi: (max(min(lo, 0.5), -0.5), min(max(hi, -0.5), 0.5)), True),
    (lambda v: v.is_int and v.absmax <= 2**20, "{x} * 1.5",
     lambda lo, hi: (1.5 * lo, 1.5 * hi), True),
    (lambda v: v.is_int and v.absmax <= 2**20, "{x} / torch.tensor(4)",
     lambda lo, hi: (lo / 4, hi / 4), True),
    (lambda v: v.dtype == "uint8" and v.lo >= 1, "{x} + (-1)",
     lambda lo, hi: (lo - 1, hi - 1), True),
    (lambda v: v.dtype == "uint8" and v.lo == 0, "{x} + (-1)",
     lambda lo, hi: (0.0, 255.0), True),
    (lambda v: v.is_bool, "{x} + 1", lambda lo, hi: (1.0, 2.0), True),
    (lambda v: v.is_bool, "{x} * 2.5", lambda lo, hi: (0.0, 2.5), True),
    (lambda v: v.is_int and v.dtype != "uint8", "{x} + torch.tensor(3)",
     lambda lo, hi: (lo + 3, hi + 3), True),
    (lambda v: v.dtype in ("float16", "bfloat16"), "{x} + torch.tensor(0.5, dtype=torch.float64)",
     lambda lo, hi: (lo + 0.5, hi + 0.5), False),
    (lambda v: v.dtype == "float32", "{x} * torch.tensor(2)",
     lambda lo, hi: (2 * lo, 2 * hi), True),
    (lambda v: v.is_float, "{x} + True", lambda lo, hi: (lo + 1, hi + 1), False),
)  # fmt: skip


@op("edge_promote", "edge", edge=True, dtypes=tuple(INT_RANGE) + ("float32", "float16",
    "bfloat16", "float64"), weight=3.0)  # fmt: skip
def _promote(b, x: Val) -> None:
    """Python scalars and 0-dim tensors of another dtype or kind as operands (row 20: the
    result dtype eager's promotion gives; ``clamp(int, float bounds)`` is #151744)."""
    rows = [r for r in _PROMOTE if r[0](x)]
    need(bool(rows), "no promotion form for this dtype")
    _, form, rng, keeps = b.rng.choice(rows)
    expr = form.format(x=x.name)
    try:
        probe = eval(expr, b.st.env)
    except Exception as e:
        raise Reject(f"{expr}: {e}") from None
    dt = dtype_name(probe.dtype)
    lo, hi = rng(x.lo, x.hi)
    need(fits(dt, lo, hi), "result leaves the dtype's safe range")
    exact = keeps and (x.exact or not x.is_float) and dt not in ("float16", "bfloat16")
    b.emit(expr, x.shape, dt, lo, hi, tag="prom", exact=exact)


__all__ = ["torch"]
