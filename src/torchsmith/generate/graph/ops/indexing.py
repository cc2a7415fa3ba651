"""Indexing ops: gather/scatter family, index_* ops, advanced indexing, masked_fill, one_hot.

Index tensors are extra forward inputs built by ``get_inputs`` (``torch.randint`` in range, or
``unique_indices`` where a repeated target would make the result depend on write order).
"""

from __future__ import annotations

import math

from torchsmith.generate.graph.ops.binary import mask_for
from torchsmith.generate.graph.spec import need, op
from torchsmith.generate.graph.values import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    INT_DTYPES,
    Val,
    fmt,
    hull,
    sum_range,
)

NUM = FLOAT_DTYPES + INT_DTYPES


def _idx_shape(b, x: Val, d: int, max_along: int | None = None) -> tuple[int, ...]:
    shape = []
    for i, n in enumerate(x.shape):
        if i == d:
            hi = max_along if max_along is not None else 6
            shape.append(b.rng.randint(1, max(1, hi)))
        else:
            shape.append(b.rng.randint(1, n) if b.rng.random() < 0.3 else n)
    return tuple(shape)


def _dim(b, x: Val) -> int:
    need(x.rank >= 1 and all(s >= 1 for s in x.shape), "needs a non-empty dim")
    return b.rng.randrange(x.rank)


@op("gather", "indexing", dtypes=ALL_DTYPES, ranks=(1, 5))
def _gather(b, x: Val) -> None:
    d = _dim(b, x)
    idx = b.index_input(_idx_shape(b, x, d), x.shape[d])
    form = b.rng.choice(
        [
            f"torch.gather({x.name}, {d}, {idx.name})",
            f"{x.name}.gather({d}, {idx.name})",
            f"torch.take_along_dim({x.name}, {idx.name}, dim={d})",
        ]
    )
    if "take_along" in form:
        need(all(a == c or i == d for i, (a, c) in enumerate(zip(idx.shape, x.shape))), "broadcast")
    b.emit(form, idx.shape, x.dtype, x.lo, x.hi, tag="gath", exact=x.exact)


@op("scatter", "indexing", dtypes=NUM, ranks=(1, 5))
def _scatter(b, x: Val) -> None:
    d = _dim(b, x)
    ishape = _idx_shape(b, x, d, max_along=x.shape[d])
    idx = b.index_input(ishape, x.shape[d], unique_dim=d)
    if b.rng.random() < 0.3:
        v = 1 if x.is_int else 0.5
        b.filled(x, f"{x.name}.scatter({d}, {idx.name}, {v})", v, tag="scat")
        return
    src = b.operand(ishape, x.dtype, broadcast=False, avoid=x)
    b.mixed(x, src, f"torch.scatter({x.name}, {d}, {idx.name}, {src.name})", tag="scat")


def _index_and_src(b, x: Val) -> tuple[int, Val, Val]:
    """A dim ``d`` of ``x``, an index tensor along it and a source operand of the index's shape."""
    d = _dim(b, x)
    ishape = _idx_shape(b, x, d)
    idx = b.index_input(ishape, x.shape[d])
    return d, idx, b.operand(ishape, x.dtype, broadcast=False, avoid=x)


@op("scatter_add", "indexing", dtypes=NUM, ranks=(1, 5))
def _scatter_add(b, x: Val) -> None:
    d, idx, src = _index_and_src(b, x)
    k = idx.shape[d]
    lo = x.lo + k * min(src.lo, 0.0)
    hi = x.hi + k * max(src.hi, 0.0)
    b.emit(
        f"{x.name}.scatter_add({d}, {idx.name}, {src.name})", x.shape, x.dtype, lo, hi, tag="scadd"
    )


@op("scatter_reduce", "indexing", dtypes=FLOAT_DTYPES, ranks=(1, 5))
def _scatter_reduce(b, x: Val) -> None:
    d, idx, src = _index_and_src(b, x)
    red = b.rng.choice(["amax", "amin", "mean", "sum"])
    incl = b.rng.choice([True, False])
    if red == "sum":
        k = idx.shape[d] + 1
        lo, hi = sum_range(min(x.lo, src.lo), max(x.hi, src.hi), k)
    else:
        lo, hi = hull((x.lo, x.hi), (src.lo, src.hi))
    b.emit(
        f"{x.name}.scatter_reduce({d}, {idx.name}, {src.name}, reduce='{red}', include_self={incl})",
        x.shape,
        x.dtype,
        lo,
        hi,
        tag="scred",
    )


@op("index_select", "indexing", dtypes=ALL_DTYPES, ranks=(1, 5))
def _index_select(b, x: Val) -> None:
    d = _dim(b, x)
    k = b.rng.randint(1, 6)
    idx = b.index_input((k,), x.shape[d])
    shape = tuple(k if i == d else s for i, s in enumerate(x.shape))
    expr = f"torch.index_select({x.name}, {d}, {idx.name})"
    b.same_values(x, expr, shape, tag="isel", view=False, distinct=False)


@op("index_add", "indexing", dtypes=NUM, ranks=(1, 5))
def _index_add(b, x: Val) -> None:
    d = _dim(b, x)
    k = b.rng.randint(1, 6)
    idx = b.index_input((k,), x.shape[d])
    src = b.operand(
        tuple(k if i == d else s for i, s in enumerate(x.shape)), x.dtype, broadcast=False, avoid=x
    )
    lo, hi = x.lo + k * min(src.lo, 0.0), x.hi + k * max(src.hi, 0.0)
    b.emit(f"{x.name}.index_add({d}, {idx.name}, {src.name})", x.shape, x.dtype, lo, hi, tag="iadd")


@op("index_copy", "indexing", dtypes=NUM, ranks=(1, 5))
def _index_copy(b, x: Val) -> None:
    d = _dim(b, x)
    k = b.rng.randint(1, x.shape[d])
    idx = b.index_input((k,), x.shape[d], unique_dim=0)
    src = b.operand(
        tuple(k if i == d else s for i, s in enumerate(x.shape)), x.dtype, broadcast=False, avoid=x
    )
    b.mixed(x, src, f"{x.name}.index_copy({d}, {idx.name}, {src.name})", tag="icopy")


@op("index_fill", "indexing", dtypes=NUM, ranks=(1, 5))
def _index_fill(b, x: Val) -> None:
    d = _dim(b, x)
    idx = b.index_input((b.rng.randint(1, 4),), x.shape[d])
    v = -1 if x.is_int else -0.5
    b.filled(x, f"{x.name}.index_fill({d}, {idx.name}, {v})", v, tag="ifill")


@op("index_put", "indexing", dtypes=NUM, ranks=(1, 4))
def _index_put(b, x: Val) -> None:
    _dim(b, x)
    acc = b.rng.random() < 0.4
    k = b.rng.randint(1, x.shape[0] if not acc else 6)
    idx = b.index_input((k,), x.shape[0], unique_dim=None if acc else 0)
    vshape = (k,) + x.shape[1:]
    if b.rng.random() < 0.3:
        vshape = x.shape[1:]  # broadcast over the indexed rows
    vals = b.operand(vshape, x.dtype, broadcast=False, avoid=x)
    if acc:
        lo, hi = x.lo + k * min(vals.lo, 0.0), x.hi + k * max(vals.hi, 0.0)
    else:
        lo, hi = hull((x.lo, x.hi), (vals.lo, vals.hi))
    acc_s = ", accumulate=True" if acc else ""
    b.emit(
        f"{x.name}.index_put(({idx.name},), {vals.name}{acc_s})",
        x.shape,
        x.dtype,
        lo,
        hi,
        tag="iput",
        exact=not acc and x.exact and vals.exact,
    )


@op("adv_index", "indexing", dtypes=ALL_DTYPES, ranks=(1, 4))
def _adv_index(b, x: Val) -> None:
    d = 0 if x.rank == 1 or b.rng.random() < 0.6 else 1
    need(x.shape[d] >= 1, "empty")
    ishape = tuple(b.rng.randint(1, 5) for _ in range(b.rng.randint(1, 2)))
    idx = b.index_input(ishape, x.shape[d])
    if d == 0:
        expr, shape = f"{x.name}[{idx.name}]", ishape + x.shape[1:]
    else:
        expr, shape = f"{x.name}[:, {idx.name}]", x.shape[:1] + ishape + x.shape[2:]
    b.emit(expr, shape, x.dtype, x.lo, x.hi, tag="pick", exact=x.exact)


@op("take", "indexing", dtypes=ALL_DTYPES)
def _take(b, x: Val) -> None:
    need(x.numel >= 1, "empty")
    ishape = tuple(b.rng.randint(1, 6) for _ in range(b.rng.randint(1, 2)))
    idx = b.index_input(ishape, x.numel)
    b.emit(
        f"torch.take({x.name}, {idx.name})", ishape, x.dtype, x.lo, x.hi, tag="take", exact=x.exact
    )


@op("masked_fill", "indexing", dtypes=NUM)
def _masked_fill(b, x: Val) -> None:
    mask = mask_for(b, x)
    v = b.rng.choice([0, -1]) if x.is_int else b.rng.choice([0.0, -1.0, 2.5])
    vs = str(v) if x.is_int else fmt(v)
    form = b.rng.choice(
        [
            f"{x.name}.masked_fill({mask.name}, {vs})",
            f"torch.masked_fill({x.name}, {mask.name}, {vs})",
        ]
    )
    b.filled(x, form, v, tag="mfill")


@op("one_hot", "indexing", dtypes=INT_DTYPES, ranks=(0, 3))
def _one_hot(b, x: Val) -> None:
    c = int(math.floor(x.hi)) + 1
    if x.lo < 0 or c > 64 or b.edge:
        x = b.clamp(x, 0, 15, force=b.edge)
        c = int(x.hi) + 1
    if x.dtype != "int64":
        x = b.cast(x, "int64")
    need(x.numel * c <= 8192, "too big")
    b.emit(f"F.one_hot({x.name}, {c})", x.shape + (c,), "int64", 0.0, 1.0, tag="onehot", exact=True)
