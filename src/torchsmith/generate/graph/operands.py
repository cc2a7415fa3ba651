"""Operands and glue for op specs: second operands, domain guards, casts and reshapes.

Mixed into :class:`~torchsmith.generate.graph.builder.Builder`. Every helper returns a :class:`Val`
and emits its statement through the builder, so glue is checked like any op (it is not counted
as a node and not listed in the ``# ops:`` header).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from torchsmith.generate.graph.values import (
    FLOAT_DTYPES,
    INT_DTYPES,
    Reject,
    Val,
    binary_range,
    distinct_ok,
    dtype_src,
    fits,
    fmt,
    hull,
    is_float,
    unary_range,
)


class GlueMixin:
    """Needs the builder's ``rng``, ``opts``, ``edge``, ``st``, ``emit``, ``live``, ``param``
    and ``new_input``."""

    def operand(
        self,
        shape: tuple[int, ...],
        dtype: str,
        *,
        broadcast: bool = True,
        avoid: Val | None = None,
        reuse: float = 0.6,
    ) -> Val:
        """A second operand of ``shape`` (or broadcastable to it) and ``dtype``: an available
        value when one fits (reused), otherwise a reshaped one, a new input or a parameter."""
        rank = len(shape)

        def fits_shape(v: Val) -> bool:
            if v.shape == tuple(shape):
                return True
            if not broadcast or v.rank > rank or v.rank == 0:
                return False
            tail = shape[rank - v.rank :]
            return all(a == b or a == 1 for a, b in zip(v.shape, tail))

        cands = [v for v in self.live() if v.dtype == dtype and v is not avoid and fits_shape(v)]
        if cands and self.rng.random() < reuse:
            return self.rng.choice(cands[-6:])
        same = [
            v
            for v in self.live()
            if v.dtype == dtype and v.numel == math.prod(shape) and v is not avoid
        ]
        if same and self.rng.random() < 0.3:
            return self.reshape(self.rng.choice(same), tuple(shape))
        target = list(shape)
        if broadcast and rank >= 2 and self.rng.random() < 0.3:
            for i in self.rng.sample(range(rank), k=self.rng.randint(1, rank - 1)):
                target[i] = 1
        budget = self.st.n_data_inputs < self.opts.max_inputs or self.opts.ops
        if is_float(dtype) and not budget and self.rng.random() < 0.7:
            return self.param(tuple(target), dtype, 1.0)
        if dtype not in self.opts.dtypes and not self.opts.ops:
            # --dtypes forbids such an input: derive the operand from an allowed one
            base = self.new_input(tuple(target), self.pick_dtype(self.opts.dtypes))
            if dtype == "bool":
                mid = (base.lo + base.hi) / 2
                mid_s = str(int(mid)) if not base.is_float else fmt(round(mid, 3))
                return self.emit(
                    f"{base.name} > {mid_s}", base.shape, "bool", 0.0, 1.0, tag="mask", exact=True
                )
            if dtype in INT_DTYPES and base.is_float:
                base = self.emit(
                    f"{base.name}.round()",
                    base.shape,
                    base.dtype,
                    math.floor(base.lo),
                    math.ceil(base.hi),
                    tag="rnd",
                    exact=True,
                )
            return self.cast(base, dtype)
        return self.new_input(tuple(target), dtype)

    def _estimate(self, ranged: Callable[..., tuple[float, float]], *args) -> tuple[float, float]:
        """``ranged(*args)``; an edge-value program takes an unbounded range where it fails."""
        try:
            return ranged(*args)
        except Reject:
            if self.edge:
                return (-math.inf, math.inf)
            raise

    def urange(self, fn, lo: float, hi: float) -> tuple[float, float]:
        return self._estimate(unary_range, fn, lo, hi)

    def brange(self, fn, a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
        return self._estimate(binary_range, fn, a, b)

    def pole(self, x: Val) -> bool:
        """Whether a domain guard on ``x`` goes near the pole or zero of the op it feeds: in
        edge programs, half the time, and only for exactly computed ``x`` (a rounding difference
        upstream must not be amplified by the pole into a false alarm); float32/float64 only."""
        if not getattr(self, "edgy", False) or x.dtype not in ("float32", "float64"):
            return False  # fp16/bf16 cannot hold 0.999 or 1.001 apart from 1 (and row 17)
        return x.exact and self.rng.random() < 0.5

    def _skip_guard(self) -> bool:
        return self.edge and self.rng.random() < 0.5

    def positive(self, x: Val, low: float = 0.5) -> Val:
        """``x`` made strictly positive (>= low): ``x.abs() + low``, what people write."""
        if x.lo >= low or self._skip_guard():
            return x
        if x.is_int:
            x = self.cast(x, "float32")
        return self.emit(
            f"{x.name}.abs() + {fmt(low)}", x.shape, x.dtype, low, x.absmax + low, tag="pos"
        )

    def nonneg(self, x: Val) -> Val:
        if x.lo >= 0 or self._skip_guard():
            return x
        if (
            x.is_int
            and x.dtype != "uint8"
            and x.lo <= -(2.0 ** (8 * {"int8": 1, "int16": 2}.get(x.dtype, 4) - 1))
        ):
            raise Reject("abs would overflow")
        return self.emit(
            f"{x.name}.abs()", x.shape, x.dtype, 0.0, x.absmax, tag="absx", exact=x.exact
        )

    def clamp(self, x: Val, lo: float, hi: float, force: bool = False) -> Val:
        """``x`` clamped into ``[lo, hi]`` (no-op when already inside; ``force`` clamps even
        then, and even in edge-value programs, for ops that would raise outside)."""
        if not force and ((x.lo >= lo and x.hi <= hi) or self._skip_guard()):
            return x
        if x.is_int:
            lo, hi = math.ceil(lo), math.floor(hi)
            a, b_ = str(int(lo)), str(int(hi))
        else:
            a, b_ = fmt(lo), fmt(hi)
            lo, hi = float(a), float(b_)
        nlo, nhi = max(x.lo, lo), min(x.hi, hi)
        if nlo > nhi:
            nlo = nhi = lo if x.hi < lo else hi
        return self.emit(
            f"{x.name}.clamp({a}, {b_})", x.shape, x.dtype, nlo, nhi, tag="clamp", exact=x.exact
        )

    def bounded(self, x: Val, limit: float) -> Val:
        return self.clamp(x, -limit, limit)

    def cast(self, x: Val, dtype: str) -> Val:
        """``x.to(dtype)`` with the value facts that survive the conversion."""
        if x.dtype == dtype:
            return x
        lo, hi = x.lo, x.hi
        exact = x.exact
        if dtype == "bool":
            lo, hi, exact = 0.0, 1.0, True
        elif dtype in INT_DTYPES:
            if x.is_float and not x.exact:
                raise Reject("int cast of inexact floats")
            lo, hi = float(math.trunc(lo)), float(math.trunc(hi))
            if not self.edge and not fits(dtype, lo, hi):
                raise Reject("cast would overflow")
        elif dtype in FLOAT_DTYPES and not x.is_float:
            exact = x.exact and x.absmax <= {"float16": 2048, "bfloat16": 256}.get(dtype, 2**24)
        elif dtype in FLOAT_DTYPES:
            exact = x.exact and (
                dtype == "float64"
                or x.dtype == dtype
                or (dtype == "float32" and x.dtype != "float64")
            )
        distinct = x.distinct and exact and dtype in FLOAT_DTYPES and distinct_ok(dtype, lo, hi, 1)
        return self.emit(
            f"{x.name}.to({dtype_src(dtype)})",
            x.shape,
            dtype,
            lo,
            hi,
            tag="cast",
            exact=exact,
            distinct=distinct and x.distinct,
        )

    def reshape(self, x: Val, shape: tuple[int, ...]) -> Val:
        if x.shape == tuple(shape):
            return x
        return self.same_values(x, f"{x.name}.reshape({tuple(shape)})", shape, tag="r")

    # ---------------------------------------------------------------- results built from x's values
    def same_values(
        self,
        x: Val,
        expr: str,
        shape: tuple[int, ...] | list[int] | None = None,
        *,
        tag: str,
        view: bool = True,
        distinct: bool = True,
    ) -> Val:
        """Emit ``expr``, whose elements are elements of ``x`` (a view, copy, selection or
        permutation; ``shape`` defaults to ``x``'s): dtype, range and exactness carry over,
        ``distinct`` when asked; ``view`` marks the result a view of ``x``."""
        return self.emit(
            expr,
            tuple(x.shape if shape is None else shape),
            x.dtype,
            x.lo,
            x.hi,
            tag=tag,
            exact=x.exact,
            distinct=distinct and x.distinct,
            view_of=x if view else None,
        )

    def filled(self, x: Val, expr: str, v: float, *, tag: str) -> Val:
        """Emit ``expr``: ``x`` with some elements set to the scalar ``v``."""
        return self.emit(expr, x.shape, x.dtype, min(x.lo, v), max(x.hi, v), tag=tag, exact=x.exact)

    def mixed(self, x: Val, y: Val, expr: str, *, tag: str) -> Val:
        """Emit ``expr``: ``x`` with some elements taken from ``y`` (same dtype)."""
        lo, hi = hull((x.lo, x.hi), (y.lo, y.hi))
        return self.emit(expr, x.shape, x.dtype, lo, hi, tag=tag, exact=x.exact and y.exact)
