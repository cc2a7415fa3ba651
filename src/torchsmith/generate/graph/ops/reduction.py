"""Reductions, scans and sorting.

Ops that return indices (argmax, sort, topk, cummax ...) only expose them when the input is
``distinct``; otherwise the spec keeps the values alone (``.values``), which do not depend on
tie-breaking.
"""

from __future__ import annotations

import math

from torchsmith.generate.graph.spec import need, op
from torchsmith.generate.graph.values import DTYPE_LIMIT, FLOAT_DTYPES, INT_DTYPES, Val, sum_range

NUM = FLOAT_DTYPES + INT_DTYPES
SIGNED = FLOAT_DTYPES + ("int64", "int32", "int16", "int8")


def pick_dims(b, x: Val, many: bool = True) -> tuple[int, ...]:
    need(x.rank >= 1, "needs a dim")
    if many and x.rank >= 2 and b.rng.random() < 0.3:
        return tuple(sorted(b.rng.sample(range(x.rank), 2)))
    return (b.rng.randrange(x.rank),)


def reduced_shape(x: Val, dims: tuple[int, ...], keepdim: bool) -> tuple[int, ...]:
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(x.shape))
    return tuple(s for i, s in enumerate(x.shape) if i not in dims)


def dim_src(dims: tuple[int, ...], b) -> str:
    if len(dims) == 1:
        d = dims[0]
        return str(d)
    return str(dims)


def _count(x: Val, dims: tuple[int, ...]) -> int:
    return math.prod(x.shape[d] for d in dims)


def _positions(b, expr: str, shape: tuple[int, ...], top: float, *, tag: str) -> Val:
    """Emit ``expr``, an int64 result of positions or counts in ``[0, top]``."""
    return b.emit(expr, shape, "int64", 0.0, top, tag=tag, exact=True)


def _values_and_indices(
    b,
    x: Val,
    call: str,
    shape: tuple[int, ...],
    d: int,
    tags: tuple[str, str],
    distinct: bool = False,
) -> None:
    """``call`` returns (values, indices) along dim ``d``: both when ``x`` is distinct (the
    indices then do not depend on tie-breaking), else ``.values`` alone. ``distinct``: the values
    stay distinct (a sort or top-k of distinct values)."""
    if x.distinct:
        outs = [
            (tags[0], shape, x.dtype, x.lo, x.hi, x.exact, distinct),
            (tags[1], shape, "int64", 0.0, x.shape[d] - 1.0, True, False),
        ]
        b.emit_multi(call, outs)
    else:
        b.emit(f"{call}.values", shape, x.dtype, x.lo, x.hi, tag=tags[0], exact=x.exact)


def _reduce_call(b, fn: str, x: Val, extra: str = "", many: bool = True):
    """``torch.fn(x, dim, keepdim=...)`` (or the whole tensor); returns (expr, shape, count)."""
    if b.rng.random() < 0.15 and fn not in ("var", "std", "logsumexp", "var_mean"):
        return f"torch.{fn}({x.name}{extra})", (), x.numel
    dims = pick_dims(b, x, many)
    keep = b.rng.random() < 0.4
    kd = ", keepdim=True" if keep else ""
    if b.rng.random() < 0.5:
        expr = f"{x.name}.{fn}({dim_src(dims, b)}{extra}{kd})"
    else:
        expr = f"torch.{fn}({x.name}, dim={dim_src(dims, b)}{extra}{kd})"
    return expr, reduced_shape(x, dims, keep), _count(x, dims)


@op("sum", "reduction", dtypes=NUM + ("bool",))
def _sum(b, x: Val) -> None:
    expr, shape, k = _reduce_call(b, "sum", x)
    dt = x.dtype if x.is_float else "int64"
    lo, hi = sum_range(x.lo, x.hi, k)
    b.emit(expr, shape, dt, lo, hi, tag="sum", exact=x.exact and not x.is_float)


@op("mean", "reduction")
def _mean(b, x: Val) -> None:
    expr, shape, _ = _reduce_call(b, "mean", x)
    b.emit(expr, shape, x.dtype, x.lo, x.hi, tag="mean")


@op("nansum", "reduction")
def _nansum(b, x: Val) -> None:
    expr, shape, k = _reduce_call(b, "nansum", x)
    b.emit(expr, shape, x.dtype, *sum_range(x.lo, x.hi, k), tag="nansum")


@op("nanmean", "reduction")
def _nanmean(b, x: Val) -> None:
    expr, shape, _ = _reduce_call(b, "nanmean", x)
    b.emit(expr, shape, x.dtype, x.lo, x.hi, tag="nanmean")


@op("prod", "reduction", dtypes=SIGNED)
def _prod(b, x: Val) -> None:
    need(x.rank >= 1, "needs a dim")
    d = (
        min(range(x.rank), key=lambda i: x.shape[i])
        if b.rng.random() < 0.7
        else b.rng.randrange(x.rank)
    )
    k = x.shape[d]
    limit = min(DTYPE_LIMIT[x.dtype], 1e4)
    c = limit ** (1.0 / max(k, 1))
    if x.is_int:
        c = math.floor(c)
        need(c >= 1, "too many factors")
    x = b.bounded(x, c) if x.absmax > c else x
    m = x.absmax**k
    lo, hi = (x.lo**k, x.hi**k) if x.lo >= 0 else (-m, m)
    lo, hi = min(lo, hi, 0.0 if x.lo <= 0 else lo), max(lo, hi)
    keep = b.rng.random() < 0.3
    dt = x.dtype if x.is_float else "int64"
    expr = f"torch.prod({x.name}, dim={d}{', keepdim=True' if keep else ''})"
    b.emit(expr, reduced_shape(x, (d,), keep), dt, lo, hi, tag="prod")


def _extreme(name: str) -> None:
    @op(name, "reduction", dtypes=NUM)
    def build(b, x: Val) -> None:
        expr, shape, _ = _reduce_call(b, name, x)
        b.emit(expr, shape, x.dtype, x.lo, x.hi, tag=name, exact=x.exact)


_extreme("amax")
_extreme("amin")


def _indexed(name: str, call: str) -> None:
    """torch.max/min/median/kthvalue/mode-like ops returning (values, indices)."""

    @op(name, "reduction", dtypes=NUM, min_numel=1)
    def build(b, x: Val) -> None:
        need(x.rank >= 1, "needs a dim")
        d = b.rng.randrange(x.rank)
        keep = b.rng.random() < 0.3
        extra = ""
        if name == "kthvalue":
            extra = f"{b.rng.randint(1, x.shape[d])}, "
        args = f"{x.name}, {extra}dim={d}{', keepdim=True' if keep else ''}"
        shape = reduced_shape(x, (d,), keep)
        _values_and_indices(b, x, f"torch.{call}({args})", shape, d, (name, f"{name}_idx"))


_indexed("max_dim", "max")
_indexed("min_dim", "min")
_indexed("median", "median")
_indexed("kthvalue", "kthvalue")


def _arg(name: str) -> None:
    @op(name, "reduction", dtypes=NUM, distinct=True)
    def build(b, x: Val) -> None:
        if x.rank == 0 or b.rng.random() < 0.2:
            _positions(b, f"torch.{name}({x.name})", (), x.numel - 1.0, tag=name)
            return
        d = b.rng.randrange(x.rank)
        keep = b.rng.random() < 0.3
        shape = reduced_shape(x, (d,), keep)
        expr = f"torch.{name}({x.name}, dim={d}{', keepdim=True' if keep else ''})"
        _positions(b, expr, shape, x.shape[d] - 1.0, tag=name)


_arg("argmax")
_arg("argmin")


def _spread(name: str) -> None:
    @op(name, "reduction")
    def build(b, x: Val) -> None:
        need(x.rank >= 1, "needs a dim")
        dims = pick_dims(b, x)
        k = _count(x, dims)
        need(k >= 2, "variance of one element")
        keep = b.rng.random() < 0.3
        corr = b.rng.choice([0, 1])
        shape = reduced_shape(x, dims, keep)
        var_hi = (x.hi - x.lo) ** 2 / 4 * k / max(k - corr, 1) * 1.001
        args = (
            f"{x.name}, dim={dim_src(dims, b)}, correction={corr}{', keepdim=True' if keep else ''}"
        )
        if name == "var_mean":
            outs = [
                ("var", shape, x.dtype, 0.0, var_hi, False, False),
                ("mean", shape, x.dtype, x.lo, x.hi, False, False),
            ]
            b.emit_multi(f"torch.var_mean({args})", outs)
            return
        hi = var_hi if name == "var" else math.sqrt(var_hi)
        b.emit(f"torch.{name}({args})", shape, x.dtype, 0.0, hi, tag=name)


_spread("var")
_spread("std")
_spread("var_mean")


@op("norm", "reduction")
def _norm(b, x: Val) -> None:
    p = b.rng.choice([1, 2, 3, "inf"])
    pv = {"inf": "float('inf')"}.get(p, str(p))
    if x.rank == 0 or b.rng.random() < 0.2:
        dims, keep, shape = tuple(range(x.rank)), False, ()
        k = x.numel
        expr = f"torch.linalg.vector_norm({x.name}, ord={pv})"
    else:
        dims = pick_dims(b, x)
        keep = b.rng.random() < 0.3
        shape, k = reduced_shape(x, dims, keep), _count(x, dims)
        kd = ", keepdim=True" if keep else ""
        expr = b.rng.choice(
            [
                f"torch.linalg.vector_norm({x.name}, ord={pv}, dim={dim_src(dims, b)}{kd})",
                f"torch.norm({x.name}, p={pv}, dim={dim_src(dims, b)}{kd})",
            ]
        )
    hi = x.absmax * (k ** (1.0 / p) if p != "inf" else 1.0) * 1.001
    b.emit(expr, shape, x.dtype, 0.0, hi, tag="norm")


@op("logsumexp", "reduction")
def _logsumexp(b, x: Val) -> None:
    expr, shape, k = _reduce_call(b, "logsumexp", x)
    b.emit(expr, shape, x.dtype, x.lo, x.hi + math.log(k) + 1e-3, tag="lse")


def _anyall(name: str) -> None:
    @op(name, "reduction", dtypes=NUM + ("bool",))
    def build(b, x: Val) -> None:
        need(not x.is_float or x.exact, "truthiness of inexact floats")
        dt = "uint8" if x.dtype == "uint8" else "bool"  # any/all keep uint8
        if x.rank == 0 or b.rng.random() < 0.3:
            b.emit(f"{x.name}.{name}()", (), dt, 0.0, 1.0, tag=name, exact=True)
            return
        d = b.rng.randrange(x.rank)
        keep = b.rng.random() < 0.3
        b.emit(
            f"torch.{name}({x.name}, dim={d}{', keepdim=True' if keep else ''})",
            reduced_shape(x, (d,), keep),
            dt,
            0.0,
            1.0,
            tag=name,
            exact=True,
        )


_anyall("any")
_anyall("all")


@op("count_nonzero", "reduction", dtypes=NUM + ("bool",))
def _count_nonzero(b, x: Val) -> None:
    need(not x.is_float or x.exact, "truthiness of inexact floats")
    dims = pick_dims(b, x)
    expr = f"torch.count_nonzero({x.name}, dim={dim_src(dims, b)})"
    _positions(b, expr, reduced_shape(x, dims, False), float(_count(x, dims)), tag="nnz")


@op("aminmax", "reduction", dtypes=NUM)
def _aminmax(b, x: Val) -> None:
    need(x.rank >= 1, "needs a dim")
    d = b.rng.randrange(x.rank)
    shape = reduced_shape(x, (d,), False)
    outs = [
        ("lo", shape, x.dtype, x.lo, x.hi, x.exact, False),
        ("hi", shape, x.dtype, x.lo, x.hi, x.exact, False),
    ]
    b.emit_multi(f"torch.aminmax({x.name}, dim={d})", outs)


# ----------------------------------------------------------------------------- scans


@op("cumsum", "scan", dtypes=NUM + ("bool",))
def _cumsum(b, x: Val) -> None:
    need(x.rank >= 1, "needs a dim")
    d = b.rng.randrange(x.rank)
    dt = x.dtype if x.is_float else "int64"
    lo, hi = sum_range(x.lo, x.hi, x.shape[d])
    form = b.rng.choice([f"torch.cumsum({x.name}, dim={d})", f"{x.name}.cumsum({d})"])
    b.emit(form, x.shape, dt, lo, hi, tag="cumsum", exact=not x.is_float and x.exact)


@op("cumprod", "scan", dtypes=SIGNED)
def _cumprod(b, x: Val) -> None:
    need(x.rank >= 1, "needs a dim")
    d = b.rng.randrange(x.rank)
    k = x.shape[d]
    c = min(DTYPE_LIMIT[x.dtype], 1e4) ** (1.0 / max(k, 1))
    if x.is_int:
        c = math.floor(c)
        need(c >= 1, "too many factors")
    x = b.bounded(x, c) if x.absmax > c else x
    m = max(x.absmax**k, x.absmax)
    lo = -m if x.lo < 0 else min(x.lo**k, x.lo)
    dt = x.dtype if x.is_float else "int64"
    b.emit(f"torch.cumprod({x.name}, dim={d})", x.shape, dt, lo, m, tag="cumprod")


def _cumext(name: str) -> None:
    @op(name, "scan", dtypes=NUM)
    def build(b, x: Val) -> None:
        need(x.rank >= 1, "needs a dim")
        d = b.rng.randrange(x.rank)
        call = f"torch.{name}({x.name}, dim={d})"
        _values_and_indices(b, x, call, x.shape, d, (name, f"{name}_idx"))


_cumext("cummax")
_cumext("cummin")


@op("logcumsumexp", "scan")
def _logcumsumexp(b, x: Val) -> None:
    need(x.rank >= 1, "needs a dim")
    d = b.rng.randrange(x.rank)
    b.emit(
        f"torch.logcumsumexp({x.name}, dim={d})",
        x.shape,
        x.dtype,
        x.lo,
        x.hi + math.log(x.shape[d]) + 1e-3,
        tag="lcse",
    )


@op("diff", "scan", dtypes=SIGNED)
def _diff(b, x: Val) -> None:
    need(x.rank >= 1, "needs a dim")
    d = b.rng.randrange(x.rank)
    need(x.shape[d] >= 2, "too short")
    shape = tuple(s - 1 if i == d else s for i, s in enumerate(x.shape))
    b.emit(
        f"torch.diff({x.name}, dim={d})",
        shape,
        x.dtype,
        x.lo - x.hi,
        x.hi - x.lo,
        tag="diff",
        exact=x.exact and not x.is_float,
    )


@op("sort", "sort", dtypes=NUM)
def _sort(b, x: Val) -> None:
    need(x.rank >= 1, "needs a dim")
    d = b.rng.randrange(x.rank)
    desc = ", descending=True" if b.rng.random() < 0.5 else ""
    call = f"torch.sort({x.name}, dim={d}{desc})"
    _values_and_indices(b, x, call, x.shape, d, ("sorted", "order"), distinct=True)


@op("argsort", "sort", dtypes=NUM, distinct=True)
def _argsort(b, x: Val) -> None:
    need(x.rank >= 1, "needs a dim")
    d = b.rng.randrange(x.rank)
    desc = ", descending=True" if b.rng.random() < 0.5 else ""
    _positions(b, f"torch.argsort({x.name}, dim={d}{desc})", x.shape, x.shape[d] - 1.0, tag="order")


@op("topk", "sort", dtypes=NUM)
def _topk(b, x: Val) -> None:
    need(x.rank >= 1, "needs a dim")
    d = b.rng.randrange(x.rank)
    k = b.rng.randint(1, x.shape[d]) if x.shape[d] >= 1 else 0
    need(k >= 1, "empty dim")
    largest = "" if b.rng.random() < 0.6 else ", largest=False"
    shape = tuple(k if i == d else s for i, s in enumerate(x.shape))
    call = f"torch.topk({x.name}, {k}, dim={d}{largest})"
    _values_and_indices(b, x, call, shape, d, ("top", "top_idx"), distinct=True)
