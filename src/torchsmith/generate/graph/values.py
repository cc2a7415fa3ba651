"""Tensor types, value facts and range arithmetic shared by the op specs and the builder.

Every value in a generated graph carries a static description (:class:`Val`): its shape, dtype,
a conservative interval ``[lo, hi]`` that holds for *any* parameters the model may be constructed
with, and two flags that protect the oracle from false alarms:

* ``exact``: the value is computed without rounding (graph inputs, layout ops, max/min, casts of
  integers ...), so eager, compiled and float64 runs agree bit for bit. Ops whose result jumps at a
  boundary (floor, round, int casts, remainder, sign ...) only take exact floats.
* ``distinct``: no two elements are equal (and, since ``distinct`` implies ``exact``, no two are
  within rounding noise of each other). Ops whose result depends on tie-breaking (argmax, sort
  indices, topk indices ...) only take distinct values.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import math
from collections.abc import Iterator

import torch

FLOAT_DTYPES = ("float32", "float64", "float16", "bfloat16")
INT_DTYPES = ("int64", "int32", "int16", "int8", "uint8")
ALL_DTYPES = FLOAT_DTYPES + INT_DTYPES + ("bool",)
LOW_PRECISION = ("float16", "bfloat16")

#: Largest magnitude a value of this dtype may reach in a default (non edge-value) program.
DTYPE_LIMIT = {
    "float32": 1e6,
    "float64": 1e6,
    "float16": 1e4,
    "bfloat16": 1e6,
    "int64": 2.0**40,
    "int32": 2.0**30,
    "int16": 2.0**14,
    "int8": 100.0,
    "uint8": 250.0,
    "bool": 1.0,
}

#: The safe magnitudes of an edge-value program (large magnitudes on purpose, ``generate/edges.py``):
#: float32/float64 up to 1e30, where float64 still agrees; fp16/bf16 keep theirs (policy row 17);
#: uint8 the whole byte (wrapped values, rows 2 and 4).
EDGE_LIMIT = {**DTYPE_LIMIT, "float32": 1e30, "float64": 1e30, "uint8": 255.0}

_LIMITS: contextvars.ContextVar[dict[str, float]] = contextvars.ContextVar(
    "dtype_limits", default=DTYPE_LIMIT
)


@contextlib.contextmanager
def limits(table: dict[str, float]) -> Iterator[None]:
    """Within the block (this thread), :func:`fits` and :func:`limit` use ``table``."""
    token = _LIMITS.set(table)
    try:
        yield
    finally:
        _LIMITS.reset(token)


def limit(dtype: str) -> float:
    """The largest magnitude a value of ``dtype`` may reach in the program being built."""
    return _LIMITS.get()[dtype]


#: Representable range of the integer dtypes (and bool).
INT_RANGE = {
    "int64": (-(2.0**63), 2.0**63 - 1),
    "int32": (-(2.0**31), 2.0**31 - 1),
    "int16": (-32768.0, 32767.0),
    "int8": (-128.0, 127.0),
    "uint8": (0.0, 255.0),
    "bool": (0.0, 1.0),
}

#: Relative spacing of representable numbers (machine epsilon).
EPS = {"float32": 2.0**-23, "float64": 2.0**-52, "float16": 2.0**-10, "bfloat16": 2.0**-7}


class Reject(Exception):  # noqa: N818 - control flow, not an error
    """An op spec (or the builder) declines this input / attribute choice."""


def is_float(dtype: str) -> bool:
    return dtype in FLOAT_DTYPES


def is_int(dtype: str) -> bool:
    return dtype in INT_DTYPES


def torch_dtype(dtype: str) -> torch.dtype:
    return getattr(torch, dtype)


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def dtype_src(dtype: str) -> str:
    return f"torch.{dtype}"


def promote(a: str, b: str) -> str:
    return dtype_name(torch.promote_types(torch_dtype(a), torch_dtype(b)))


def numel(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


@dataclasses.dataclass(frozen=True)
class Val:
    """A tensor value of the graph being built (a forward argument, a parameter or a result)."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    lo: float
    hi: float
    exact: bool = False
    distinct: bool = False
    kind: str = "value"  # "input", "index", "param" or "value"
    storage: int = 0  # values sharing a storage id may alias each other
    is_view: bool = False

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        return numel(self.shape)

    @property
    def absmax(self) -> float:
        return max(abs(self.lo), abs(self.hi))

    @property
    def is_float(self) -> bool:
        return is_float(self.dtype)

    @property
    def is_int(self) -> bool:
        return is_int(self.dtype)

    @property
    def is_bool(self) -> bool:
        return self.dtype == "bool"


def fits(dtype: str, lo: float, hi: float) -> bool:
    """True when ``[lo, hi]`` is finite and within the safe magnitude of ``dtype``."""
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return False
    cap = limit(dtype)
    if dtype in INT_RANGE:
        rlo, rhi = INT_RANGE[dtype]
        return rlo <= lo and hi <= rhi and max(abs(lo), abs(hi)) <= cap
    return max(abs(lo), abs(hi)) <= cap


def distinct_ok(dtype: str, lo: float, hi: float, n: int) -> bool:
    """Whether ``n`` evenly spread values over ``[lo, hi]`` stay distinct in ``dtype``."""
    if not is_float(dtype):
        return False
    if n <= 1:
        return True
    gap = 0.5 * (hi - lo) / n
    return gap > 4 * EPS[dtype] * max(abs(lo), abs(hi), 1e-3)


# --------------------------------------------------------------------------- range arithmetic


def _grid(lo: float, hi: float, n: int) -> torch.Tensor:
    pts = torch.linspace(lo, hi, n, dtype=torch.float64)
    a, b = max(lo, -8.0), min(hi, 8.0)
    if a < b and (hi - lo) > 16.0:  # wide interval: sample the busy region near zero densely too
        pts = torch.cat([pts, torch.linspace(a, b, n, dtype=torch.float64)])
    extra = [v for v in (0.0, -1.0, 1.0, 0.5, -0.5) if lo < v < hi]
    if extra:
        pts = torch.cat([pts, torch.tensor(extra, dtype=torch.float64)])
    return pts


def _span(y: torch.Tensor, widen: float = 1e-6) -> tuple[float, float]:
    if y.numel() == 0 or not bool(torch.isfinite(y).all()):
        raise Reject("range not finite")
    lo, hi = float(y.min()), float(y.max())
    pad = widen * max(abs(lo), abs(hi), 1.0)
    return lo - pad, hi + pad


def unary_range(fn, lo: float, hi: float) -> tuple[float, float]:
    """Interval of ``fn`` over ``[lo, hi]``, estimated on a dense float64 grid (with margin)."""
    with torch.no_grad():
        return _span(fn(_grid(lo, hi, 1025)), 1e-4)


def binary_range(fn, a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """Interval of ``fn(x, y)`` for ``x`` in ``a`` and ``y`` in ``b`` (dense grid, with margin)."""
    with torch.no_grad():
        x = _grid(a[0], a[1], 97).reshape(-1, 1)
        y = _grid(b[0], b[1], 97).reshape(1, -1)
        return _span(fn(x, y), 2e-3)


def hull(*ranges: tuple[float, float]) -> tuple[float, float]:
    return min(r[0] for r in ranges), max(r[1] for r in ranges)


def sum_range(lo: float, hi: float, k: int) -> tuple[float, float]:
    """Range of a sum of ``k`` terms each in ``[lo, hi]``."""
    return min(k * lo, lo), max(k * hi, hi)


def dot_range(a: Val | tuple[float, float], b: Val | tuple[float, float], k: int):
    """Range of a sum of ``k`` products of terms in ``a`` and ``b``."""
    alo, ahi = (a.lo, a.hi) if isinstance(a, Val) else a
    blo, bhi = (b.lo, b.hi) if isinstance(b, Val) else b
    prods = (alo * blo, alo * bhi, ahi * blo, ahi * bhi)
    plo, phi = min(prods), max(prods)
    return sum_range(plo, phi, k)


def fmt(v: float) -> str:
    """A short, exact-enough literal for a float attribute."""
    if v == int(v) and abs(v) < 1e6:
        return f"{v:.1f}"
    return f"{v:.4g}"
