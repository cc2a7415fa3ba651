"""Linear algebra: mm, bmm, matmul, addmm, baddbmm, einsum, linear, bilinear, ..."""

from __future__ import annotations

import math

from torchsmith.generate.graph.spec import need, op
from torchsmith.generate.graph.values import FLOAT_DTYPES, Reject, Val, dot_range, dtype_src, fits
from torchsmith.generate.shapes import gemm_size


def dot_fit(b, x: Val, y: Val, k: int, extra: tuple[float, float] = (0.0, 0.0)):
    """Range of sums of ``k`` products of x and y terms; bounds the operands when it overflows."""
    for lim in (None, 4.0, 1.0):
        if lim is not None:
            x, y = b.bounded(x, lim), b.bounded(y, lim)
        lo, hi = dot_range(x, y, k)
        lo, hi = lo + extra[0], hi + extra[1]
        if b.edge or fits(x.dtype, lo, hi):
            return x, y, lo, hi
    raise Reject("product range too wide")


def _dims(b, n: int = 1) -> list[int]:
    if b.boundary:  # shapes=boundary: around the GEMM templates' block sizes
        return [gemm_size(b.rng) for _ in range(n)]
    return [b.rng.choice([1, 2, 3, 4, 5, 8, 12, 16]) for _ in range(n)]


@op("mm", "linalg", ranks=(2, 2))
def _mm(b, x: Val) -> None:
    m, k = x.shape
    (n,) = _dims(b)
    y = b.operand((k, n), x.dtype, broadcast=False, avoid=x)
    x, y, lo, hi = dot_fit(b, x, y, k)
    form = b.rng.choice([f"torch.mm({x.name}, {y.name})", f"{x.name} @ {y.name}"])
    b.emit(form, (m, n), x.dtype, lo, hi, tag="mm")


@op("bmm", "linalg", ranks=(3, 3))
def _bmm(b, x: Val) -> None:
    bs, m, k = x.shape
    (n,) = _dims(b)
    y = b.operand((bs, k, n), x.dtype, broadcast=False, avoid=x)
    x, y, lo, hi = dot_fit(b, x, y, k)
    b.emit(f"torch.bmm({x.name}, {y.name})", (bs, m, n), x.dtype, lo, hi, tag="bmm")


@op("matmul", "linalg", ranks=(1, 4))
def _matmul(b, x: Val) -> None:
    k = x.shape[-1]
    r = b.rng.random()
    if x.rank == 1 or r < 0.25:
        y = b.operand((k,), x.dtype, broadcast=False, avoid=x)
        shape = x.shape[:-1]
    elif r < 0.6:
        (n,) = _dims(b)
        y = b.operand((k, n), x.dtype, broadcast=False, avoid=x)
        shape = x.shape[:-1] + (n,)
    else:
        (n,) = _dims(b)
        batch = x.shape[:-2]
        if batch and b.rng.random() < 0.4:
            ybatch = tuple(1 if b.rng.random() < 0.5 else s for s in batch)
        else:
            ybatch = batch
        y = b.operand(ybatch + (k, n), x.dtype, broadcast=False, avoid=x)
        shape = x.shape[:-1] + (n,)
    x, y, lo, hi = dot_fit(b, x, y, k)
    form = b.rng.choice([f"torch.matmul({x.name}, {y.name})", f"{x.name} @ {y.name}"])
    b.emit(form, shape, x.dtype, lo, hi, tag="matmul")


def _add_product(
    b,
    fn: str,
    c: Val,
    x: Val,
    y: Val,
    k: int,
    shape: tuple[int, ...],
    beta: float,
    alpha: float | None = None,
) -> Val:
    """``torch.<fn>(c, x, y, beta=..., alpha=...)``: ``beta * c + alpha * (x @ y)`` with ``k``
    terms per product (``alpha=None`` leaves it out: 1)."""
    x, y, lo, hi = dot_fit(b, x, y, k)
    scale = 1 if alpha is None else alpha
    lo, hi = scale * lo + beta * min(c.lo, 0), scale * hi + beta * max(c.hi, 0)
    alpha_s = "" if alpha is None else f", alpha={alpha}"
    expr = f"torch.{fn}({c.name}, {x.name}, {y.name}, beta={beta}{alpha_s})"
    return b.emit(expr, shape, x.dtype, lo, hi, tag=fn)


@op("addmm", "linalg", ranks=(2, 2))
def _addmm(b, x: Val) -> None:
    m, k = x.shape
    (n,) = _dims(b)
    y = b.operand((k, n), x.dtype, broadcast=False, avoid=x)
    c = b.operand((n,) if b.rng.random() < 0.5 else (m, n), x.dtype, broadcast=False, avoid=x)
    beta, alpha = b.rng.choice([(1, 1), (0.5, 2), (1, 0.5)])
    _add_product(b, "addmm", c, x, y, k, (m, n), beta, alpha)


@op("baddbmm", "linalg", ranks=(3, 3))
def _baddbmm(b, x: Val) -> None:
    bs, m, k = x.shape
    (n,) = _dims(b)
    y = b.operand((bs, k, n), x.dtype, broadcast=False, avoid=x)
    c = b.operand((bs, m, n), x.dtype, avoid=x)
    _add_product(b, "baddbmm", c, x, y, k, (bs, m, n), 0.5)


@op("einsum", "linalg", ranks=(1, 4))
def _einsum(b, x: Val) -> None:
    letters = "ijkl"[: x.rank]
    s = x.shape
    pats = []
    if x.rank >= 2:
        (n,) = _dims(b)
        pats.append(
            (f"{letters},{letters[-1]}z->{letters[:-1]}z", s[-1:] + (n,), s[:-1] + (n,), s[-1])
        )
        pats.append((f"{letters}->{letters[::-1]}", None, s[::-1], 1))
    pats.append((f"{letters},{letters}->{letters[0]}", s, s[:1], math.prod(s[1:])))
    pats.append((f"{letters}->{letters[-1]}", None, s[-1:], math.prod(s[:-1])))
    if x.rank == 3:
        (n,) = _dims(b)
        pats.append(("bij,bjk->bik".replace("b", "a"), (s[0], s[2], n), (s[0], s[1], n), s[2]))
    eq, yshape, oshape, k = b.rng.choice(pats)
    if yshape is None:
        lo, hi = (x.lo, x.hi) if k == 1 else (min(k * x.lo, x.lo), max(k * x.hi, x.hi))
        b.emit(f"torch.einsum('{eq}', {x.name})", oshape, x.dtype, lo, hi, tag="ein")
        return
    y = b.operand(yshape, x.dtype, broadcast=False, avoid=x)
    x, y, lo, hi = dot_fit(b, x, y, k)
    b.emit(f"torch.einsum('{eq}', {x.name}, {y.name})", oshape, x.dtype, lo, hi, tag="ein")


def _dt(x: Val) -> str:
    return "" if x.dtype == "float32" else f", dtype={dtype_src(x.dtype)}"


@op("linear", "linalg", ranks=(1, 4))
def _linear(b, x: Val) -> None:
    k = x.shape[-1]
    need(k >= 1, "empty features")
    (n,) = _dims(b)
    bias = b.rng.random() < 0.8
    wb = 1 / math.sqrt(k)
    x = b.bounded(x, 1e3 if x.dtype != "float16" else 50.0)
    lo, hi = dot_range(x, (-wb, wb), k)
    lo, hi = lo - (wb if bias else 0), hi + (wb if bias else 0)
    shape = x.shape[:-1] + (n,)
    if b.rng.random() < 0.7:
        lin = b.layer("linear", f"nn.Linear({k}, {n}{'' if bias else ', bias=False'}{_dt(x)})")
        b.emit(f"{lin}({x.name})", shape, x.dtype, lo, hi, tag="lin")
    else:
        w = b.param((n, k), x.dtype, round(wb, 4))
        args = f"{x.name}, {w.name}"
        if bias:
            bb = b.param((n,), x.dtype, round(wb, 4), tag="bias")
            args += f", {bb.name}"
        b.emit(f"F.linear({args})", shape, x.dtype, lo - 1e-3, hi + 1e-3, tag="lin")


@op("bilinear", "linalg", ranks=(2, 3))
def _bilinear(b, x: Val) -> None:
    k1 = x.shape[-1]
    (k2,) = _dims(b)
    (n,) = _dims(b)
    y = b.operand(x.shape[:-1] + (k2,), x.dtype, broadcast=False, avoid=x)
    x, y = b.bounded(x, 4.0), b.bounded(y, 4.0)
    wb = 1 / math.sqrt(k1)
    m = x.absmax * y.absmax * k1 * k2 * wb + wb
    layer = b.layer("bilinear", f"nn.Bilinear({k1}, {k2}, {n}{_dt(x)})")
    b.emit(f"{layer}({x.name}, {y.name})", x.shape[:-1] + (n,), x.dtype, -m, m, tag="bil")


@op("outer", "linalg", ranks=(1, 1))
def _outer(b, x: Val) -> None:
    (n,) = _dims(b)
    y = b.operand((n,), x.dtype, broadcast=False, avoid=x)
    x, y, lo, hi = dot_fit(b, x, y, 1)
    b.emit(f"torch.outer({x.name}, {y.name})", x.shape + (n,), x.dtype, lo, hi, tag="outer")


@op("mv", "linalg", ranks=(2, 2))
def _mv(b, x: Val) -> None:
    m, k = x.shape
    y = b.operand((k,), x.dtype, broadcast=False, avoid=x)
    x, y, lo, hi = dot_fit(b, x, y, k)
    b.emit(f"torch.mv({x.name}, {y.name})", (m,), x.dtype, lo, hi, tag="mv")


@op("dot", "linalg", ranks=(1, 1))
def _dot(b, x: Val) -> None:
    y = b.operand(x.shape, x.dtype, broadcast=False, avoid=x)
    x, y, lo, hi = dot_fit(b, x, y, x.shape[0])
    b.emit(f"torch.dot({x.name}, {y.name})", (), x.dtype, lo, hi, tag="dot")


@op("tensordot", "linalg", ranks=(2, 4))
def _tensordot(b, x: Val) -> None:
    (n,) = _dims(b)
    k = x.shape[-1]
    y = b.operand((k, n), x.dtype, broadcast=False, avoid=x)
    x, y, lo, hi = dot_fit(b, x, y, k)
    b.emit(
        f"torch.tensordot({x.name}, {y.name}, dims=1)",
        x.shape[:-1] + (n,),
        x.dtype,
        lo,
        hi,
        tag="tdot",
    )


def _fresh_cross(b) -> Val:
    rank = b.rng.randint(1, min(3, b.opts.max_rank))
    shape = list(b.sample_shape(rank))
    shape[b.rng.randrange(rank)] = 3
    return b.new_input(tuple(shape), b.pick_dtype(b.allowed(FLOAT_DTYPES)))


@op("cross", "linalg", ranks=(1, 4), dtypes=FLOAT_DTYPES, fresh_fn=_fresh_cross)
def _cross(b, x: Val) -> None:
    dims = [i for i, s in enumerate(x.shape) if s == 3]
    need(bool(dims), "needs a dim of size 3")
    d = b.rng.choice(dims)
    y = b.operand(x.shape, x.dtype, broadcast=False, avoid=x)
    x, y = b.bounded(x, 100.0), b.bounded(y, 100.0)
    m = 2 * x.absmax * y.absmax
    lo, hi = -m, m
    b.emit(
        f"torch.linalg.cross({x.name}, {y.name}, dim={d})", x.shape, x.dtype, lo, hi, tag="cross"
    )
