"""Unary pointwise math: one table row per op.

Domain handling (see notes/generator.md): a row names the domain its input must lie in; when the
input's interval leaves it, the spec inserts the guard people write (``x.abs() + 0.5`` before
``log``, ``x.clamp(-0.9, 0.9)`` before ``asin``). Rows with a growth bound (``exp``, ``sinh`` ...)
clamp the input until the output fits the dtype. Rows marked ``exact`` jump at boundaries
(``floor``, ``sign`` ...) and only take exactly computed floats.
"""

from __future__ import annotations

import math

import torch

from torchsmith.generate.graph.spec import Elementwise, op, register
from torchsmith.generate.graph.values import FLOAT_DTYPES, Reject, Val, fmt, unary_range

SIGNED_INTS = ("int64", "int32", "int16", "int8")


class Unary(Elementwise):
    """``out = f(x)`` elementwise."""

    def __init__(
        self,
        name: str,
        forms: str | tuple[str, ...],
        fn,
        *,
        domain: str | None = None,
        bound: float | None = None,
        out_dtype: str | None = None,
        keeps_exact: bool = False,
        keeps_distinct: bool = False,
        **kw,
    ) -> None:
        super().__init__(name, forms, fn, **kw)
        self.domain = domain
        self.bound = bound
        self.out_dtype = out_dtype
        self.keeps_exact = keeps_exact
        self.keeps_distinct = keeps_distinct

    def guard(self, b, x: Val) -> Val:
        d = self.domain
        near = d in ("pos", "unit", "ge1") and b.pole(x)  # edge programs: near the pole
        if d == "pos":
            return b.positive(x, 1e-4 if near else 0.5)
        if d == "nonneg":
            return b.nonneg(x)
        if d == "unit":
            return b.clamp(x, -0.999, 0.999) if near else b.clamp(x, -0.9, 0.9)
        if d == "ge1":
            return b.positive(x, 1.001 if near else 1.5)
        if d == "open01":
            if x.lo >= 0.02 and x.hi <= 0.98:
                return x
            y = b.clamp(x, -4.0, 4.0)
            lo, hi = 1 / (1 + math.exp(-y.lo)), 1 / (1 + math.exp(-y.hi))
            return b.emit(
                f"torch.sigmoid({y.name})", y.shape, y.dtype, lo - 1e-6, hi + 1e-6, tag="prob"
            )
        if d == "gt-1":
            return b.nonneg(x)
        return x

    def build(self, b, x: Val, forms: tuple[str, ...] | None = None) -> None:
        """Emit ``f(x)`` in one of ``forms`` (default: the spec's own spellings). A spec is shared
        by every builder in the process (campaign slots generate on several threads at once), so
        a variant spelling is passed here, never set on the spec."""
        out_dtype = self.out_dtype or x.dtype
        x1 = self.guard(b, x)
        bound = self.bound
        if self.name == "tan" and b.pole(x1):  # edge programs: up to 1.57, next to pi/2
            bound = 1.57
        limits = [bound] if bound else [None]
        limits += [8.0, 4.0, 2.0, 1.0]
        for lim in limits:
            x2 = b.bounded(x1, lim) if lim is not None else x1
            fitted = self.fitted_range(b, out_dtype, x2.lo, x2.hi)
            if fitted is not None:
                break
        else:
            raise Reject("no bound makes the output fit")
        lo, hi = fitted
        form = b.rng.choice(forms or self.forms)
        exact = self.keeps_exact and x2.exact
        b.emit(
            form.format(x=x2.name),
            x.shape,
            out_dtype,
            lo,
            hi,
            tag=self.tag,
            exact=exact or out_dtype == "bool" and x2.exact,
            distinct=self.keeps_distinct and x2.distinct,
        )


def _u(name: str, forms: str | tuple[str, ...], fn, **kw) -> None:
    register(Unary(name, forms, fn, **kw))


F = FLOAT_DTYPES
NUM = FLOAT_DTYPES + SIGNED_INTS
_u("abs", ("torch.abs({x})", "{x}.abs()"), torch.abs, dtypes=NUM, keeps_exact=True)
_u("neg", ("torch.neg({x})", "-{x}"), torch.neg, dtypes=NUM, keeps_exact=True, keeps_distinct=True)
_u("exp", ("torch.exp({x})", "{x}.exp()"), torch.exp, bound=8.0)
_u("exp2", "torch.exp2({x})", torch.exp2, bound=12.0)
_u("expm1", "torch.expm1({x})", torch.expm1, bound=8.0)
_u("log", ("torch.log({x})", "{x}.log()"), torch.log, domain="pos")
_u("log2", "torch.log2({x})", torch.log2, domain="pos")
_u("log10", "torch.log10({x})", torch.log10, domain="pos")
_u("log1p", "torch.log1p({x})", torch.log1p, domain="gt-1")
_u("sqrt", ("torch.sqrt({x})", "{x}.sqrt()"), torch.sqrt, domain="nonneg")
_u("rsqrt", "torch.rsqrt({x})", torch.rsqrt, domain="pos")


def _periodic(fn):
    """Range of a 2*pi-periodic function: its full range over a wide interval, else sampled."""

    def rng(lo: float, hi: float) -> tuple[float, float]:
        return (-1.0, 1.0) if hi - lo > 6.3 else unary_range(fn, lo, hi)

    return rng


_u("sin", ("torch.sin({x})", "{x}.sin()"), torch.sin, range_fn=_periodic(torch.sin))
_u("cos", "torch.cos({x})", torch.cos, range_fn=_periodic(torch.cos))
_u("tan", "torch.tan({x})", torch.tan, bound=1.3)
_u("asin", "torch.asin({x})", torch.asin, domain="unit")
_u("acos", "torch.acos({x})", torch.acos, domain="unit")
_u("atan", "torch.atan({x})", torch.atan)
_u("sinh", "torch.sinh({x})", torch.sinh, bound=8.0)
_u("cosh", "torch.cosh({x})", torch.cosh, bound=8.0)
_u("tanh", ("torch.tanh({x})", "{x}.tanh()"), torch.tanh)
_u("asinh", "torch.asinh({x})", torch.asinh)
_u("acosh", "torch.acosh({x})", torch.acosh, domain="ge1")
_u("atanh", "torch.atanh({x})", torch.atanh, domain="unit")
_u("sigmoid", ("torch.sigmoid({x})", "{x}.sigmoid()"), torch.sigmoid)
_u("erf", "torch.erf({x})", torch.erf)
_u("erfc", "torch.erfc({x})", torch.erfc)
_u("erfinv", "torch.erfinv({x})", torch.erfinv, domain="unit")
_u("reciprocal", ("torch.reciprocal({x})", "1.0 / {x}"), torch.reciprocal, domain="pos")
_u("square", ("torch.square({x})", "{x} * {x}"), torch.square, dtypes=NUM, bound=100.0)
_u("sign", "torch.sign({x})", torch.sign, dtypes=NUM, exact=True, keeps_exact=True)
_u("floor", "torch.floor({x})", torch.floor, exact=True, keeps_exact=True)
_u("ceil", "torch.ceil({x})", torch.ceil, exact=True, keeps_exact=True)
_u("round", ("torch.round({x})", "{x}.round()"), torch.round, exact=True, keeps_exact=True)
_u("trunc", "torch.trunc({x})", torch.trunc, exact=True, keeps_exact=True)
_u(
    "frac",
    "torch.frac({x})",
    torch.frac,
    exact=True,
    range_fn=lambda lo, hi: (-1.0 if lo < 0 else 0.0, 1.0 if hi > 0 else 0.0),
)
_u(
    "round_decimals",
    "torch.round({x}, decimals=2)",
    lambda t: torch.round(t, decimals=2),
    exact=True,
)
_u("lgamma", "torch.lgamma({x})", torch.lgamma, domain="pos")
_u("digamma", "torch.digamma({x})", torch.digamma, domain="pos")
_u("i0", "torch.i0({x})", torch.i0, bound=6.0)
_u(
    "sinc",
    "torch.sinc({x})",
    torch.sinc,
    range_fn=lambda lo, hi: (-0.2173, 1.0) if hi - lo > 2.0 else unary_range(torch.sinc, lo, hi),
)
_u("logit", "torch.logit({x})", torch.logit, domain="open01")
_u(
    "nan_to_num",
    "torch.nan_to_num({x}, nan=0.0, posinf=1e3, neginf=-1e3)",
    lambda t: t,
    keeps_exact=True,
)
_u("deg2rad", "torch.deg2rad({x})", torch.deg2rad)
_u("rad2deg", "torch.rad2deg({x})", torch.rad2deg)
_u("signbit", "torch.signbit({x})", torch.signbit, out_dtype="bool", exact=True)
_u("isnan", "torch.isnan({x})", torch.isnan, out_dtype="bool")
_u("isinf", "torch.isinf({x})", torch.isinf, out_dtype="bool")
_u("isfinite", "torch.isfinite({x})", torch.isfinite, out_dtype="bool")
_u("ndtr", "torch.special.ndtr({x})", torch.special.ndtr)
_u("log_ndtr", "torch.special.log_ndtr({x})", torch.special.log_ndtr, bound=8.0)
_u("ndtri", "torch.special.ndtri({x})", torch.special.ndtri, domain="open01")
_u("entr", "torch.special.entr({x})", torch.special.entr, domain="nonneg")
_u("erfcx", "torch.special.erfcx({x})", torch.special.erfcx, bound=6.0)
_u("i1", "torch.special.i1({x})", torch.special.i1, bound=6.0)


@op("affine", "pointwise", dtypes=F)
def _affine(b, x: Val) -> None:
    """``x * a + c`` with scalar constants (what a hand-written normalisation looks like)."""
    a, c = b.rng.choice([(0.5, 1.0), (2.0, -0.25), (-1.5, 0.5)])
    lo, hi = sorted((a * x.lo + c, a * x.hi + c))
    b.emit(f"{x.name} * {fmt(a)} + {fmt(c)}", x.shape, x.dtype, lo, hi, tag="affine")
