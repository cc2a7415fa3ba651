"""Binary and ternary pointwise math (with broadcasting and type promotion)."""

from __future__ import annotations

import math

import torch

from torchsmith.generate.graph.spec import Elementwise, need, op, register
from torchsmith.generate.graph.values import (
    FLOAT_DTYPES,
    Reject,
    Val,
    dtype_name,
    fmt,
    hull,
    torch_dtype,
)

SIGNED_INTS = ("int64", "int32", "int16", "int8")
NUM = FLOAT_DTYPES + SIGNED_INTS


def result_dtype(fn, a: str, b: str | float) -> str:
    ta = torch.ones(1, dtype=torch_dtype(a))
    tb = b if isinstance(b, int | float) else torch.ones(1, dtype=torch_dtype(b))
    try:
        return dtype_name(fn(ta, tb).dtype)
    except Exception as e:
        raise Reject(f"{fn}: {a} with {b}") from e


def nonzero(b, y: Val, low: float = 0.5) -> Val:
    """``y`` kept away from zero (``y.abs() + low``); ints stay ints."""
    if y.lo >= low or b._skip_guard():
        return y
    if y.is_int:
        return b.emit(
            f"{y.name}.abs() + 1", y.shape, y.dtype, 1.0, y.absmax + 1, tag="nz", exact=True
        )
    if y.exact and y.hi >= low:  # clamping rounds nothing: the divisor stays exact
        return b.emit(
            f"{y.name}.clamp(min={fmt(low)})", y.shape, y.dtype, low, y.hi, tag="nz", exact=True
        )
    return b.positive(y, low)


class Binary(Elementwise):
    """``out = f(a, b)`` with ``b`` a tensor operand (broadcast to ``a``) or a Python scalar."""

    arity = 2

    def __init__(
        self,
        name,
        forms,
        fn,
        *,
        rhs=None,
        lhs=None,
        scalars=(),
        rhs_bound=None,
        **kw,
    ):
        kw.setdefault("dtypes", FLOAT_DTYPES)
        super().__init__(name, forms, fn, **kw)
        self.rhs = rhs
        self.lhs = lhs
        self.scalars = scalars
        self.rhs_bound = rhs_bound

    def _guard(self, b, v: Val, kind: str | None) -> Val:
        if kind == "nonzero":
            return nonzero(b, v)
        if kind == "pos":
            return b.positive(v, 0.5)
        return v

    def build(self, b, x: Val) -> None:
        scalars = [s for s in self.scalars if not (x.is_int and isinstance(s, float))]
        if scalars and b.rng.random() < 0.35:
            y: Val | float = b.rng.choice(scalars)
        else:
            dt = x.dtype
            if x.is_float and b.rng.random() < 0.1:
                dt = b.rng.choice([d for d in FLOAT_DTYPES if d in b.opts.dtypes] or [dt])
            y = b.operand(x.shape, dt, avoid=x)
            need(not self.exact or not y.is_float or y.exact, "needs exact rhs")
            need(y.dtype in self.dtypes, "rhs dtype")
        a = self._guard(b, x, self.lhs)
        if isinstance(y, Val):
            y = self._guard(b, y, self.rhs)
            need(not self.exact or not y.is_float or y.exact, "the guard made the rhs inexact")
            if self.rhs_bound:
                y = b.bounded(y, self.rhs_bound)
        out_dtype = result_dtype(self.fn, a.dtype, y if not isinstance(y, Val) else y.dtype)
        for lim in (None, 16.0, 4.0, 1.0):
            a2 = b.bounded(a, lim) if lim else a
            y2 = y
            if isinstance(y, Val) and lim and self.rhs != "pos" and self.rhs != "nonzero":
                y2 = b.bounded(y, lim)
            yr = (y2.lo, y2.hi) if isinstance(y2, Val) else (float(y2), float(y2))
            fitted = self.fitted_range(b, out_dtype, (a2.lo, a2.hi), yr)
            if fitted is not None:
                break
        else:
            raise Reject("no bound makes the output fit")
        lo, hi = fitted
        rhs = y2.name if isinstance(y2, Val) else repr(y2)
        form = b.rng.choice(self.forms)
        b.emit(form.format(a=a2.name, b=rhs), x.shape, out_dtype, lo, hi, tag=self.tag)


def _b(name, forms, fn, **kw) -> None:
    register(Binary(name, forms, fn, **kw))


_b("add", ("{a} + {b}", "torch.add({a}, {b})"), torch.add, dtypes=NUM, scalars=(1, 0.5, -2.0))
_b("sub", ("{a} - {b}", "torch.sub({a}, {b})"), torch.sub, dtypes=NUM, scalars=(1, 0.25))
_b("mul", ("{a} * {b}", "torch.mul({a}, {b})"), torch.mul, dtypes=NUM, scalars=(2, 0.5, -1.5))
_b(
    "div",
    ("{a} / {b}", "torch.div({a}, {b})"),
    torch.div,
    rhs="nonzero",
    scalars=(2.0, 3, -0.5),
    dtypes=NUM,
)
#: The rounding divisions: their results jump at integer boundaries, so only exact inputs.
_ROUNDING = {"rhs": "nonzero", "dtypes": NUM, "exact": True}
for _mode in ("floor", "trunc"):
    _b(
        f"div_{_mode}",
        f"torch.div({{a}}, {{b}}, rounding_mode='{_mode}')",
        lambda a, b, mode=_mode: torch.div(a, b, rounding_mode=mode),
        scalars=(2, 3),
        **_ROUNDING,
    )


def _remainder_range(a, b):
    return min(0.0, b[0]), max(0.0, b[1])


def _fmod_range(a, b):
    m = min(max(abs(b[0]), abs(b[1])), max(abs(a[0]), abs(a[1])))
    return (-m if a[0] < 0 else 0.0), (m if a[1] > 0 else 0.0)


_b(
    "remainder",
    ("{a} % {b}", "torch.remainder({a}, {b})"),
    torch.remainder,
    scalars=(2, 3, 1.5),
    range_fn=_remainder_range,
    **_ROUNDING,
)
_b(
    "fmod",
    "torch.fmod({a}, {b})",
    torch.fmod,
    scalars=(2, 3, 1.5),
    range_fn=_fmod_range,
    **_ROUNDING,
)
_b(
    "floor_divide",
    ("{a} // {b}", "torch.floor_divide({a}, {b})"),
    torch.floor_divide,
    scalars=(2, 3),
    **_ROUNDING,
)
_b(
    "pow",
    ("torch.pow({a}, {b})", "{a} ** {b}"),
    torch.pow,
    lhs="pos",
    rhs_bound=3.0,
    scalars=(2, 0.5, -1, 1.5, 3),
)
_b(
    "atan2",
    "torch.atan2({a}, {b})",
    torch.atan2,
    range_fn=lambda a, b: (
        (-math.pi / 2 - 1e-3, math.pi / 2 + 1e-3) if b[0] > 0 else (-math.pi - 1e-3, math.pi + 1e-3)
    ),
)
_b("maximum", "torch.maximum({a}, {b})", torch.maximum, dtypes=NUM)
_b("minimum", "torch.minimum({a}, {b})", torch.minimum, dtypes=NUM)
_b("fmax", "torch.fmax({a}, {b})", torch.fmax)
_b("fmin", "torch.fmin({a}, {b})", torch.fmin)
_b("hypot", "torch.hypot({a}, {b})", torch.hypot)
_b("copysign", "torch.copysign({a}, {b})", torch.copysign, exact=True, scalars=(-1.0,))
_b("logaddexp", "torch.logaddexp({a}, {b})", torch.logaddexp)
_b("logaddexp2", "torch.logaddexp2({a}, {b})", torch.logaddexp2)
_b("xlogy", "torch.xlogy({a}, {b})", torch.xlogy, rhs="pos", scalars=(2.0,))
_b("heaviside", "torch.heaviside({a}, {b})", torch.heaviside, exact=True)


@op("clamp", "pointwise", dtypes=NUM)
def _clamp(b, x: Val) -> None:
    span = x.hi - x.lo
    lo = x.lo + span * b.rng.uniform(0.1, 0.4)
    hi = x.hi - span * b.rng.uniform(0.1, 0.4)
    if x.is_int:
        lo, hi = math.floor(lo), math.ceil(hi)
        lo_s, hi_s = str(int(lo)), str(int(hi))
    else:
        lo, hi = round(lo, 2), round(hi, 2)
        lo_s, hi_s = fmt(lo), fmt(hi)
    form = b.rng.choice(
        [
            (f"torch.clamp({x.name}, {lo_s}, {hi_s})", lo, hi),
            (f"{x.name}.clamp(min={lo_s})", lo, x.hi),
            (f"torch.clamp_max({x.name}, {hi_s})", x.lo, hi),
        ]
    )
    expr, f_lo, f_hi = form
    b.emit(
        expr,
        x.shape,
        x.dtype,
        min(max(f_lo, x.lo), x.hi),
        max(min(f_hi, x.hi), x.lo),
        tag="clamp",
        exact=x.exact,
    )


@op("clamp_tensor", "pointwise")
def _clamp_tensor(b, x: Val) -> None:
    y = b.operand(x.shape, x.dtype, avoid=x)
    which = b.rng.choice(["min", "max"])
    if which == "min":
        lo, hi = max(x.lo, y.lo), max(x.hi, y.hi)
    else:
        lo, hi = min(x.lo, y.lo), min(x.hi, y.hi)
    b.emit(
        f"torch.clamp({x.name}, {which}={y.name})",
        x.shape,
        x.dtype,
        lo,
        hi,
        tag="clamp",
        exact=x.exact and y.exact,
    )


@op("lerp", "pointwise")
def _lerp(b, x: Val) -> None:
    y = b.operand(x.shape, x.dtype, avoid=x)
    if b.rng.random() < 0.5:
        w = b.rng.choice([0.25, 0.5, 0.8])
        b.emit(
            f"torch.lerp({x.name}, {y.name}, {w})",
            x.shape,
            x.dtype,
            *hull((x.lo, x.hi), (y.lo, y.hi)),
            tag="lerp",
        )
        return
    w = b.operand(x.shape, x.dtype, avoid=x)
    w = b.emit(f"torch.sigmoid({w.name})", w.shape, w.dtype, 0.0, 1.0, tag="wgt")
    lo, hi = hull((x.lo, x.hi), (y.lo, y.hi))
    b.emit(f"torch.lerp({x.name}, {y.name}, {w.name})", x.shape, x.dtype, lo, hi, tag="lerp")


@op("addcmul", "pointwise")
def _addcmul(b, x: Val) -> None:
    y = b.bounded(b.operand(x.shape, x.dtype, avoid=x), 8.0)
    z = b.bounded(b.operand(x.shape, x.dtype, avoid=x), 8.0)
    p = [y.lo * z.lo, y.lo * z.hi, y.hi * z.lo, y.hi * z.hi]
    lo, hi = x.lo + 0.5 * min(p), x.hi + 0.5 * max(p)
    b.emit(
        f"torch.addcmul({x.name}, {y.name}, {z.name}, value=0.5)",
        x.shape,
        x.dtype,
        lo,
        hi,
        tag="addcmul",
    )


@op("addcdiv", "pointwise")
def _addcdiv(b, x: Val) -> None:
    y = b.bounded(b.operand(x.shape, x.dtype, avoid=x), 8.0)
    z = b.positive(b.operand(x.shape, x.dtype, avoid=x), 0.5)
    m = y.absmax / 0.5
    b.emit(
        f"torch.addcdiv({x.name}, {y.name}, {z.name}, value=0.5)",
        x.shape,
        x.dtype,
        x.lo - 0.5 * m,
        x.hi + 0.5 * m,
        tag="addcdiv",
    )


def mask_for(b, x: Val) -> Val:
    """A bool mask broadcastable to ``x``: an available one, or ``x > threshold``."""
    masks = [v for v in b.live() if v.is_bool and v.shape == x.shape]
    if masks and b.rng.random() < 0.6:
        return b.rng.choice(masks)
    t = (x.lo + x.hi) / 2
    t_s = str(int(t)) if x.is_int else fmt(round(t, 3))
    return b.emit(f"{x.name} > {t_s}", x.shape, "bool", 0.0, 1.0, tag="mask", exact=True)


@op("where", "pointwise", dtypes=NUM)
def _where(b, x: Val) -> None:
    cond = mask_for(b, x)
    if b.rng.random() < 0.4:
        c = 0 if x.is_int else b.rng.choice([0.0, -1.0, 0.5])
        b.filled(x, f"torch.where({cond.name}, {x.name}, {c})", c, tag="where")
        return
    y = b.operand(x.shape, x.dtype, avoid=x)
    b.mixed(x, y, f"torch.where({cond.name}, {x.name}, {y.name})", tag="where")


@op("ldexp", "pointwise", dtypes=("float32", "float64"))
def _ldexp(b, x: Val) -> None:
    ints = [d for d in ("int32", "int64") if d in b.opts.dtypes] or (
        ["int32"] if b.opts.ops else []
    )
    need(bool(ints), "no integer dtype allowed")
    e = b.operand(x.shape, b.rng.choice(ints), avoid=x)
    e = b.clamp(e, -3, 3)
    m = 2.0 ** max(abs(e.lo), abs(e.hi))
    lo, hi = min(x.lo * m, x.lo / m), max(x.hi * m, x.hi / m)
    b.emit(f"torch.ldexp({x.name}, {e.name})", x.shape, x.dtype, lo, hi, tag="ldexp")


@op("frexp", "pointwise", dtypes=("float32", "float64"), exact=True)
def _frexp(b, x: Val) -> None:
    top = math.frexp(max(x.absmax, 1e-30))[1]
    outs = [
        ("mant", x.shape, x.dtype, -1.0, 1.0, True, False),
        ("expo", x.shape, "int32", -1100.0, float(top), True, False),
    ]
    b.emit_multi(f"torch.frexp({x.name})", outs)
