"""In-place variants (``add_``, ``relu_`` ...).

They only mutate intermediates that own their storage (never a forward argument, a parameter or a
view); every other value sharing that storage is retired by the builder, so no later statement
reads contents that the range bookkeeping no longer describes.
"""

from __future__ import annotations

import math

import torch

from torchsmith.generate.graph.ops.binary import mask_for, nonzero
from torchsmith.generate.graph.spec import OpSpec, need, register
from torchsmith.generate.graph.values import FLOAT_DTYPES, INT_DTYPES, Val, fmt

SIGNED = FLOAT_DTYPES + ("int64", "int32", "int16", "int8")


class InPlace(OpSpec):
    def __init__(self, name: str, fn, dtypes=FLOAT_DTYPES) -> None:
        super().__init__(name, "inplace", dtypes=dtypes, ranks=(0, 5))
        self.fn = fn

    def accepts(self, x: Val, edge: bool = False) -> bool:
        return super().accepts(x, edge) and x.kind == "value" and not x.is_view

    def fresh(self, b) -> Val:
        x = super().fresh(b)
        if x.is_float:
            return b.emit(f"{x.name} * 1.5", x.shape, x.dtype, 1.5 * x.lo, 1.5 * x.hi, tag="h")
        return b.emit(f"{x.name} + 1", x.shape, x.dtype, x.lo + 1, x.hi + 1, tag="h", exact=True)

    def build(self, b, x: Val) -> None:
        self.fn(b, x)


def _binary_inplace(method: str, combine, guard=None, dtypes=SIGNED) -> None:
    def build(b, x: Val) -> None:
        if b.rng.random() < 0.4:
            c = b.rng.choice([2, 3] if x.is_int else [0.5, 2.0, -1.5])
            lo, hi = combine((x.lo, x.hi), (float(c), float(c)))
            b.emit_inplace(x, f"{x.name}.{method}({c})", lo, hi)
            return
        y = b.operand(x.shape, x.dtype, avoid=x)
        need(y.storage != x.storage or y.kind != "value", "operand aliases the target")
        if guard:
            y = guard(b, y)
        if x.is_float:
            y = b.bounded(y, 100.0)
            xb = x
        else:
            xb = x
        lo, hi = combine((xb.lo, xb.hi), (y.lo, y.hi))
        b.emit_inplace(
            x, f"{x.name}.{method}({y.name})", lo, hi, exact=x.exact and y.exact and x.is_int
        )

    register(InPlace(f"{method}", build, dtypes))


def _corners(f):
    def combine(a, c):
        vals = [f(p, q) for p in a for q in c]
        return min(vals), max(vals)

    return combine


_binary_inplace("add_", lambda a, c: (a[0] + c[0], a[1] + c[1]))
_binary_inplace("sub_", lambda a, c: (a[0] - c[1], a[1] - c[0]))
_binary_inplace("mul_", _corners(lambda p, q: p * q))
_binary_inplace(
    "div_", _corners(lambda p, q: p / q), guard=lambda b, y: b.positive(y, 0.5), dtypes=FLOAT_DTYPES
)


def _unary_inplace(
    method: str, fn, dtypes=FLOAT_DTYPES, keeps_exact: bool = False, bound=None
) -> None:
    def build(b, x: Val) -> None:
        if bound is not None:
            need(x.absmax <= bound, "input too large for an in-place op with no room for a guard")
        lo, hi = b.urange(fn, x.lo, x.hi)
        b.emit_inplace(x, f"{x.name}.{method}()", lo, hi, exact=keeps_exact and x.exact)

    register(InPlace(method, build, dtypes))


_unary_inplace("relu_", torch.relu, SIGNED, keeps_exact=True)
_unary_inplace("sigmoid_", torch.sigmoid)
_unary_inplace("tanh_", torch.tanh)
_unary_inplace("abs_", torch.abs, SIGNED, keeps_exact=True)
_unary_inplace("neg_", torch.neg, SIGNED, keeps_exact=True)
_unary_inplace("exp_", torch.exp, bound=8.0)
_unary_inplace("sin_", torch.sin, bound=3.0)


def _clamp_(b, x: Val) -> None:
    span = x.hi - x.lo
    lo, hi = x.lo + 0.2 * span, x.hi - 0.2 * span
    if x.is_int:
        lo, hi = math.floor(lo), math.ceil(hi)
        a, c = str(int(lo)), str(int(hi))
    else:
        a, c = fmt(round(lo, 2)), fmt(round(hi, 2))
        lo, hi = float(a), float(c)
    b.emit_inplace(
        x,
        f"{x.name}.clamp_({a}, {c})",
        max(min(lo, x.hi), x.lo),
        min(max(hi, x.lo), x.hi),
        exact=x.exact,
    )


register(InPlace("clamp_", _clamp_, SIGNED))


def _masked_fill_(b, x: Val) -> None:
    mask = mask_for(b, x)
    v = -1 if x.is_int else 0.0
    b.emit_inplace(
        x, f"{x.name}.masked_fill_({mask.name}, {v})", min(x.lo, v), max(x.hi, v), exact=x.exact
    )


register(InPlace("masked_fill_", _masked_fill_, SIGNED))


def _relu_functional(b, x: Val) -> None:
    if b.rng.random() < 0.5:
        stmt = f"F.relu({x.name}, inplace=True)"
    else:
        layer = b.layer("relu", "nn.ReLU(inplace=True)")
        stmt = f"{layer}({x.name})"
    b.emit_inplace(x, stmt, max(x.lo, 0.0), max(x.hi, 0.0), exact=x.exact)


register(InPlace("relu_inplace_module", _relu_functional))


def _index_add_(b, x: Val) -> None:
    need(x.rank >= 1 and x.shape[0] >= 1, "needs rows")
    k = b.rng.randint(1, 4)
    idx = b.index_input((k,), x.shape[0])
    src = b.bounded(b.operand((k,) + x.shape[1:], x.dtype, broadcast=False, avoid=x), 100.0)
    lo, hi = x.lo + k * min(src.lo, 0.0), x.hi + k * max(src.hi, 0.0)
    b.emit_inplace(x, f"{x.name}.index_add_(0, {idx.name}, {src.name})", lo, hi)


register(InPlace("index_add_", _index_add_))
_ = (INT_DTYPES, nonzero)
