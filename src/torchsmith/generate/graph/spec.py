"""Op specifications and their registry.

An :class:`OpSpec` describes one op once: which primary inputs it takes (rank, dtype, value
facts), how it samples its attributes and secondary operands, and the shape, dtype and value range
it produces. Its :meth:`OpSpec.build` is the local solver of the design (see notes/generator.md):
given one available value, it either raises :class:`~torchsmith.generate.graph.values.Reject` or emits the
op (plus any glue such as a guard, a cast or a reshape) through the builder.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from torchsmith.generate.graph.values import FLOAT_DTYPES, Reject, Val, fits

if TYPE_CHECKING:
    from torchsmith.generate.graph.builder import Builder

REGISTRY: dict[str, OpSpec] = {}
#: Specs drawn only by edge-value programs (``values=edge``, ``generate/edges.py``): kept out of
#: :data:`REGISTRY` so that the other programs draw exactly what they drew before.
EDGE_REGISTRY: dict[str, OpSpec] = {}


class OpSpec:
    """Base class: subclasses (or instances with a ``build_fn``) implement :meth:`build`."""

    def __init__(
        self,
        name: str,
        family: str,
        *,
        tag: str | None = None,
        ranks: tuple[int, int] = (0, 5),
        dtypes: tuple[str, ...] = FLOAT_DTYPES,
        exact: bool = False,
        distinct: bool = False,
        min_numel: int = 1,
        weight: float = 1.0,
        fresh_rank: tuple[int, int] | None = None,
        build_fn: Callable[[Builder, Val], None] | None = None,
        fresh_fn: Callable[[Builder], Val] | None = None,
    ) -> None:
        self.name = name
        self.family = family
        self.tag = tag or name.rstrip("_").replace(".", "_")
        self.ranks = ranks
        self.dtypes = dtypes
        self.exact = exact
        self.distinct = distinct
        self.min_numel = min_numel
        self.weight = weight
        self.fresh_rank = fresh_rank
        self.build_fn = build_fn
        self.fresh_fn = fresh_fn

    def accepts(self, x: Val, edge: bool = False) -> bool:
        """Cheap static filter on the primary input (rank, dtype, value facts). With
        ``edge`` (edge-value programs) ties and inexact values are allowed on purpose."""
        if x.dtype not in self.dtypes:
            return False
        if not self.ranks[0] <= x.rank <= self.ranks[1]:
            return False
        if x.numel < self.min_numel:
            return False
        if edge:
            return True
        if self.distinct and not x.distinct:
            return False
        if self.exact and x.is_float and not x.exact:
            return False
        return True

    def build(self, b: Builder, x: Val) -> None:
        """Emit the op on ``x`` (raise :class:`Reject` if ``x`` does not suit after all)."""
        if self.build_fn is None:
            raise NotImplementedError(self.name)
        self.build_fn(b, x)

    def fresh(self, b: Builder) -> Val:
        """A new graph input this op accepts (used when no available value suits it)."""
        if self.fresh_fn is not None:
            return self.fresh_fn(b)
        lo, hi = self.fresh_rank or self.ranks
        lo = max(lo, 1 if self.min_numel > 1 else 0)
        hi = max(lo, min(hi, b.opts.max_rank))
        dtypes = b.allowed(self.dtypes)
        return b.new_input(rank=b.rng.randint(lo, hi), dtype=b.pick_dtype(dtypes))

    def __repr__(self) -> str:
        return f"OpSpec({self.name!r}, {self.family!r})"


class Elementwise(OpSpec):
    """Base of the table-driven pointwise specs (unary and binary math).

    ``forms`` are the spellings (one drawn per use), ``fn`` the reference function used to probe
    for a kernel and to estimate the output range, ``range_fn`` an exact range rule that replaces
    the estimate."""

    arity = 1

    def __init__(
        self,
        name: str,
        forms: str | tuple[str, ...],
        fn: Callable,
        *,
        range_fn: Callable | None = None,
        **kw,
    ) -> None:
        super().__init__(name, "pointwise", **kw)
        self.forms = forms if isinstance(forms, tuple) else (forms,)
        self.fn = fn
        self.range_fn = range_fn

    def accepts(self, x: Val, edge: bool = False) -> bool:
        return super().accepts(x, edge) and supports(self.fn, x.dtype, self.arity)

    def fitted_range(self, b: Builder, out_dtype: str, *args) -> tuple[float, float] | None:
        """Output range for operand ranges ``args`` (``lo, hi`` for a unary op, two
        ``(lo, hi)`` pairs for a binary one), or ``None`` when it does not fit ``out_dtype``."""
        estimate = b.urange if self.arity == 1 else b.brange
        lo, hi = self.range_fn(*args) if self.range_fn else estimate(self.fn, *args)
        if out_dtype == "bool":
            lo, hi = 0.0, 1.0
        return (lo, hi) if b.edge or fits(out_dtype, lo, hi) else None


def register(spec: OpSpec, edge: bool = False) -> OpSpec:
    if spec.name in REGISTRY or spec.name in EDGE_REGISTRY:
        raise ValueError(f"duplicate op spec {spec.name}")
    (EDGE_REGISTRY if edge else REGISTRY)[spec.name] = spec
    return spec


def op(
    name: str, family: str, *, edge: bool = False, **kw
) -> Callable[[Callable[[Builder, Val], None]], OpSpec]:
    """Decorator: register a build function as an op spec (``edge``: for edge programs only)."""

    def wrap(fn: Callable[[Builder, Val], None]) -> OpSpec:
        return register(OpSpec(name, family, build_fn=fn, **kw), edge=edge)

    return wrap


_SUPPORT: dict[tuple[int, str, int], bool] = {}


def supports(fn: Callable, dtype: str, arity: int = 1) -> bool:
    """Whether ``fn`` has a CPU kernel for ``dtype`` (probed once on a tiny tensor, cached)."""
    key = (id(fn), dtype, arity)
    if key not in _SUPPORT:
        import torch

        t = (torch.ones(2, dtype=torch.float64) * 0.5).to(getattr(torch, dtype))
        try:
            fn(*([t] * arity))
            _SUPPORT[key] = True
        except Exception:
            _SUPPORT[key] = False
    return _SUPPORT[key]


def need(cond: bool, why: str = "") -> None:
    """Decline unless ``cond`` holds."""
    if not cond:
        raise Reject(why)
