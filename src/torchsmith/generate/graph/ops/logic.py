"""Comparisons, logical and bitwise ops (shifts included), and dtype casts."""

from __future__ import annotations

import math

from torchsmith.generate.graph.spec import need, op
from torchsmith.generate.graph.values import (
    ALL_DTYPES,
    FLOAT_DTYPES,
    INT_DTYPES,
    Val,
    distinct_ok,
    dtype_src,
    fits,
    fmt,
)

NUM = FLOAT_DTYPES + INT_DTYPES
INTS_BOOL = INT_DTYPES + ("bool",)


def _rhs(b, x: Val, exact: bool) -> Val | str:
    """A comparison partner: a scalar threshold inside x's range, or a tensor operand."""
    if b.rng.random() < 0.4:
        t = x.lo + (x.hi - x.lo) * b.rng.uniform(0.3, 0.7)
        return str(int(t)) if not x.is_float else fmt(round(t, 3))
    y = b.operand(x.shape, x.dtype, avoid=x)
    need(not exact or not y.is_float or y.exact, "needs exact operand")
    return y


def _compare(name: str, sym: str, fn: str, exact: bool) -> None:
    @op(name, "compare", dtypes=NUM, exact=exact)
    def build(b, x: Val) -> None:
        y = _rhs(b, x, exact)
        rhs = y.name if isinstance(y, Val) else y
        form = b.rng.choice([f"{x.name} {sym} {rhs}", f"torch.{fn}({x.name}, {rhs})"])
        b.emit(form, x.shape, "bool", 0.0, 1.0, tag=name, exact=True)


# eq/ne flip on rounding noise, so they take exact floats; orderings tolerate it (a near tie of
# two independently computed floats is rare, and the oracle judges against float64).
_compare("eq", "==", "eq", True)
_compare("ne", "!=", "ne", True)
_compare("lt", "<", "lt", False)
_compare("le", "<=", "le", False)
_compare("gt", ">", "gt", False)
_compare("ge", ">=", "ge", False)


@op("isclose", "compare", dtypes=FLOAT_DTYPES)
def _isclose(b, x: Val) -> None:
    y = b.operand(x.shape, x.dtype, avoid=x)
    b.emit(
        f"torch.isclose({x.name}, {y.name}, rtol=0.1, atol=0.05)",
        x.shape,
        "bool",
        0.0,
        1.0,
        tag="close",
    )


def _logical(name: str) -> None:
    @op(f"logical_{name}", "logic", dtypes=ALL_DTYPES)
    def build(b, x: Val) -> None:
        need(x.exact or not x.is_float, "truthiness of inexact floats")
        y = b.operand(x.shape, "bool" if "bool" in b.opts.dtypes else x.dtype, avoid=x)
        need(not y.is_float or y.exact, "truthiness of inexact floats")
        b.emit(
            f"torch.logical_{name}({x.name}, {y.name})",
            x.shape,
            "bool",
            0.0,
            1.0,
            tag=name,
            exact=True,
        )


for _n in ("and", "or", "xor"):
    _logical(_n)


@op("logical_not", "logic", dtypes=ALL_DTYPES)
def _logical_not(b, x: Val) -> None:
    need(x.exact or not x.is_float, "truthiness of inexact floats")
    b.emit(f"torch.logical_not({x.name})", x.shape, "bool", 0.0, 1.0, tag="lnot", exact=True)


def _bits_range(x: Val, y: Val) -> tuple[float, float]:
    k = math.ceil(math.log2(max(x.absmax, y.absmax, 1) + 1))
    lo = 0.0 if x.lo >= 0 and y.lo >= 0 else -(2.0**k)
    return lo, 2.0**k - 1


def _bitwise(name: str, sym: str) -> None:
    @op(f"bitwise_{name}", "bitwise", dtypes=INTS_BOOL)
    def build(b, x: Val) -> None:
        y = b.operand(x.shape, x.dtype, avoid=x)
        lo, hi = (0.0, 1.0) if x.is_bool else _bits_range(x, y)
        form = b.rng.choice(
            [f"{x.name} {sym} {y.name}", f"torch.bitwise_{name}({x.name}, {y.name})"]
        )
        b.emit(form, x.shape, x.dtype, lo, hi, tag=f"b{name}", exact=True)


_bitwise("and", "&")
_bitwise("or", "|")
_bitwise("xor", "^")


@op("bitwise_not", "bitwise", dtypes=INTS_BOOL)
def _bitwise_not(b, x: Val) -> None:
    if x.is_bool:
        lo, hi = 0.0, 1.0
    elif x.dtype == "uint8":
        lo, hi = 255 - x.hi, 255 - x.lo
    else:
        lo, hi = -x.hi - 1, -x.lo - 1
    b.emit(
        f"~{x.name}" if b.rng.random() < 0.5 else f"torch.bitwise_not({x.name})",
        x.shape,
        x.dtype,
        lo,
        hi,
        tag="bnot",
        exact=True,
    )


#: Bit widths of the integer dtypes (shift amounts at and past them: policy row 7).
_WIDTH = {"int8": 8, "uint8": 8, "int16": 16, "int32": 32, "int64": 64}


def _wide_shift(b, x: Val, sym: str, fn: str, amounts: list[int]) -> str:
    """A shift of ``x`` by an amount at or past its bit width (edge programs, row 7): a Python
    scalar or a tensor of ``x``'s dtype holding it."""
    s = b.rng.choice(amounts)
    return b.rng.choice(
        [
            f"{x.name} {sym} {s}",
            f"torch.{fn}({x.name}, {s})",
            f"torch.{fn}({x.name}, torch.full_like({x.name}, {s}))",
        ]
    )


@op("shift_left", "bitwise", dtypes=INT_DTYPES)
def _shl(b, x: Val) -> None:
    x = b.nonneg(x)  # left shifts of negative numbers are undefined behaviour in C++
    if b.edgy and b.rng.random() < 0.5:  # by >= the width: 0 (w-1 would reach the sign bit)
        w = _WIDTH[x.dtype]
        expr = _wide_shift(b, x, "<<", "bitwise_left_shift", sorted({w, w + 1, 64, 100}))
        b.emit(expr, x.shape, x.dtype, 0.0, 0.0, tag="shl", exact=True)
        return
    x = b.clamp(x, 0, {"int8": 12, "uint8": 30}.get(x.dtype, 1000))
    s = b.rng.randint(0, 3)
    form = b.rng.choice([f"{x.name} << {s}", f"torch.bitwise_left_shift({x.name}, {s})"])
    b.emit(form, x.shape, x.dtype, x.lo * 2**s, x.hi * 2**s, tag="shl", exact=True)


@op("shift_right", "bitwise", dtypes=INT_DTYPES)
def _shr(b, x: Val) -> None:
    if b.edgy and b.rng.random() < 0.5:  # by w-1 and more: 0, or -1 for negative values
        w = _WIDTH[x.dtype]
        need(x.absmax < 2.0 ** (w - 1), "w-1 must shift every bit out")
        expr = _wide_shift(b, x, ">>", "bitwise_right_shift", sorted({w - 1, w, w + 1, 64, 100}))
        b.emit(expr, x.shape, x.dtype, -1.0 if x.lo < 0 else 0.0, 0.0, tag="shr", exact=True)
        return
    if b.rng.random() < 0.5:
        s = b.rng.randint(0, 3)
        form = b.rng.choice([f"{x.name} >> {s}", f"torch.bitwise_right_shift({x.name}, {s})"])
        b.emit(form, x.shape, x.dtype, math.floor(x.lo / 2**s), x.hi, tag="shr", exact=True)
        return
    s = b.clamp(b.operand(x.shape, x.dtype, avoid=x), 0, 3)
    b.emit(
        f"{x.name} >> {s.name}",
        x.shape,
        x.dtype,
        min(0.0, math.floor(x.lo)),
        max(0.0, x.hi),
        tag="shr",
        exact=True,
    )


_CAST_FORMS = {
    "float32": ".float()",
    "float64": ".double()",
    "float16": ".half()",
    "bfloat16": ".bfloat16()",
    "int32": ".int()",
    "int64": ".long()",
    "int16": ".short()",
    "bool": ".bool()",
}


def _cast(name: str, targets: tuple[str, ...], srcs: tuple[str, ...]) -> None:
    @op(name, "cast", dtypes=srcs)
    def build(b, x: Val) -> None:
        choices = [d for d in targets if d in b.opts.dtypes and d != x.dtype]
        need(bool(choices), "no target dtype")
        dt = b.rng.choice(choices)
        wrap = False
        if b.edgy and "uint8" in choices and x.lo < 0 and b.rng.random() < 0.6:
            dt = "uint8"  # edge programs: negatives into uint8 on purpose
        if dt in INT_DTYPES:
            need(not x.is_float or x.exact, "int cast of inexact floats")
            if dt == "uint8" and x.lo < 0 and b.edgy:
                # rows 2 and 4: values truncating into [-128, -1] wrap (-1.5 -> 255); below
                # -128 a float's cast is undefined (row 3), so the clamp keeps them out
                # (bounds between integers, ints: -128 and 255, so that no clamped value sits
                # on a truncation boundary, which the probe would call unstable)
                x = b.clamp(x, -128.5, 255.5)
                wrap = x.lo <= -1
            elif not fits(dt, x.lo, x.hi):
                x = b.clamp(x, {"uint8": 0}.get(dt, -100), 100)
        if dt == "float16" and x.absmax > 1e4:
            x = b.bounded(x, 1e4)
        if dt == "bool":
            need(not x.is_float or x.exact, "truthiness of inexact floats")
            lo, hi, exact = 0.0, 1.0, True
        elif wrap:
            lo, hi, exact = 0.0, 255.0, True
        elif dt in INT_DTYPES:
            lo, hi, exact = float(math.trunc(x.lo)), float(math.trunc(x.hi)), True
        else:
            lo, hi = x.lo, x.hi
            limit = {"float16": 2048, "bfloat16": 256}.get(dt, 2**24)
            exact = x.exact and (
                not x.is_float
                and x.absmax <= limit
                or dt == "float64"
                or (dt == "float32" and x.dtype in ("float16", "bfloat16"))
            )
        form = _CAST_FORMS.get(dt) if b.rng.random() < 0.5 else None
        expr = f"{x.name}{form}" if form else f"{x.name}.to({dtype_src(dt)})"
        distinct = x.distinct and exact and distinct_ok(dt, x.lo, x.hi, x.numel)
        b.emit(expr, x.shape, dt, lo, hi, tag="cast", exact=exact, distinct=distinct)


_cast("cast_float", ("float32", "float64"), FLOAT_DTYPES + INT_DTYPES + ("bool",))
_cast("cast_half", ("float16", "bfloat16"), FLOAT_DTYPES + INT_DTYPES + ("bool",))
_cast("cast_int", INT_DTYPES, FLOAT_DTYPES + INT_DTYPES + ("bool",))
_cast("cast_bool", ("bool",), FLOAT_DTYPES + INT_DTYPES)
