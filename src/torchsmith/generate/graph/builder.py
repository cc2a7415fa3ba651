"""The graph builder: grows a random DAG of op specs, one locally solved op at a time.

The builder owns the program under construction: forward statements, ``__init__`` layers, graph
inputs with their (seeded) construction code, and a :class:`Val` for every live value. Every
statement is also executed at once on the very tensors ``get_inputs()`` will return, which checks
each spec's claimed shape, dtype and value range as the graph grows: a spec that got something
wrong is rolled back (in ``strict`` mode, used by the tests, it is an error instead).
"""

from __future__ import annotations

import copy
import dataclasses
import math
import random
import re
import threading
import types
from collections.abc import Callable
from typing import Any

import torch
import torch.nn as nn
import torch.nn.functional as F

from torchsmith.generate.edges import uses_edge
from torchsmith.generate.graph.operands import GlueMixin
from torchsmith.generate.graph.options import GenOptions, compile_filter
from torchsmith.generate.graph.render import HELPERS
from torchsmith.generate.graph.spec import EDGE_REGISTRY, REGISTRY, OpSpec
from torchsmith.generate.graph.values import (
    DTYPE_LIMIT,
    EDGE_LIMIT,
    Reject,
    Val,
    distinct_ok,
    dtype_src,
    fits,
    fmt,
    is_float,
    limits,
)
from torchsmith.generate.shapes import boundary_shape, dynamic_marks, uses_boundary

_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
_INPUT_NAMES = ("x", "y", "z", "u", "v", "w")
_DTYPE_WEIGHT = {"float32": 10.0, "float64": 1.0, "float16": 1.0, "bfloat16": 1.0, "bool": 0.6}
_FLOAT_RANGES = ((-2.0, 2.0), (-1.0, 1.0), (-3.0, 3.0), (0.25, 2.0), (-4.0, 1.0))
#: Input ranges of an edge-value program's float32/float64 inputs (half of them): large
#: magnitudes, and ``None`` for exact .5 ties (``k * 0.5``, policy row 19), with weights.
_EDGE_FLOAT_RANGES = (
    ((-1e4, 1e4), 1.0),
    ((-1e6, -1e3), 1.0),
    ((1e3, 1e6), 0.6),
    ((-3e5, 3e5), 0.6),
    ((-1e30, 1e30), 0.5),
    (None, 1.5),
)
#: Draw weight multipliers of existing specs in edge programs: the ops the edge values feed.
_EDGE_BOOST = {
    **dict.fromkeys(("shift_left", "shift_right", "cast_int"), 4.0),
    **dict.fromkeys(("round", "floor", "ceil", "trunc", "frac", "remainder", "floor_divide"), 2.5),
    **dict.fromkeys(("asinh", "log", "log2", "reciprocal", "rsqrt", "tan", "atanh", "asin"), 2.5),
    **dict.fromkeys(("acosh", "lgamma", "digamma", "erfinv", "std", "var", "var_mean"), 2.0),
    **dict.fromkeys(("amax", "amin", "sort", "clamp", "cumsum", "sum", "mean", "norm"), 1.5),
}
_INT_RANGES = {
    "int8": (-20, 20),
    "uint8": (0, 40),
    "int16": (-100, 100),
    "int32": (-100, 100),
    "int64": (-200, 200),
}
# torch's global RNG is process state: a layer's initial values come from it, seeded per layer.
# Builders on other threads (campaign slots) must not reseed it in between.
_TORCH_RNG = threading.Lock()


class SpecError(AssertionError):
    """A spec emitted code that failed or disagreed with its own claims (strict mode only)."""


@dataclasses.dataclass(frozen=True)
class Input:
    val: Val
    src: str  # expression building it inside get_inputs()


@dataclasses.dataclass
class State:
    lines: list[str] = dataclasses.field(default_factory=list)
    layers: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    inputs: list[Input] = dataclasses.field(default_factory=list)
    vals: dict[str, Val] = dataclasses.field(default_factory=dict)  # live values by name
    order: list[str] = dataclasses.field(default_factory=list)  # creation order of values
    uses: dict[str, int] = dataclasses.field(default_factory=dict)
    counters: dict[str, int] = dataclasses.field(default_factory=dict)
    ops: list[str] = dataclasses.field(default_factory=list)
    env: dict[str, Any] = dataclasses.field(default_factory=dict)
    objs: dict[str, Any] = dataclasses.field(default_factory=dict)
    next_storage: int = 1
    n_data_inputs: int = 0
    sinks: list[Val] = dataclasses.field(default_factory=list)  # outputs nothing may consume


class Builder(GlueMixin):
    def __init__(self, seed: int, opts: GenOptions, strict: bool = False) -> None:
        self.seed = seed
        self.opts = opts
        self.strict = strict
        self.rng = random.Random(seed)
        self.edge = opts.values == "wild"  # the blanket mode: checks off, UNDEFINED cases too
        self.edgy = uses_edge(opts.values, seed)  # edge values on the policy's BUG side
        self.boundary = uses_boundary(opts.shapes, seed)  # boundary sizes on purpose
        self.dynamic: list[tuple[int, int]] = []  # (input, dim) marked dynamic in get_inputs
        self.st = State()
        env = {"torch": torch, "nn": nn, "F": F, "math": math, "g": torch.Generator()}
        for src in HELPERS.values():
            exec(src, env)
        self.st.env = env
        self._refresh_self()
        match = compile_filter(opts.ops)
        self.specs = [s for s in REGISTRY.values() if match(s.name)]
        if self.edgy:  # only edge programs draw these (the others keep their bytes)
            self.specs += [s for s in EDGE_REGISTRY.values() if match(s.name)]
        self.rejects: dict[str, int] = {}
        # with edge values, ranges may be infinite and a spec's arithmetic on them may fail
        self._declines = (Reject, ArithmeticError, ValueError) if self.edge else (Reject,)

    # ------------------------------------------------------------------ state & execution
    def snapshot(self) -> State:
        s = copy.copy(self.st)
        for f in ("lines", "layers", "inputs", "order", "ops", "sinks"):
            setattr(s, f, list(getattr(self.st, f)))
        for f in ("vals", "uses", "counters", "env", "objs"):
            setattr(s, f, dict(getattr(self.st, f)))
        return s

    def restore(self, s: State) -> None:
        self.st = s
        self._refresh_self()

    def _refresh_self(self) -> None:
        self.st.env["self"] = types.SimpleNamespace(**self.st.objs)

    def fresh_name(self, tag: str) -> str:
        n = self.st.counters.get(tag, 0) + 1
        self.st.counters[tag] = n
        return f"{tag}{n}"

    def _fail(self, msg: str) -> None:
        if self.strict and not self.edge:
            raise SpecError(msg)
        raise Reject(msg)

    def _exec(self, stmt: str) -> None:
        try:
            exec(stmt, self.st.env)
        except Reject:
            raise
        except Exception as e:  # the op does not accept what the spec gave it
            self._fail(f"{stmt}: {type(e).__name__}: {e}")

    def _count_uses(self, stmt: str, exclude: set[str]) -> None:
        for ident in set(_IDENT.findall(stmt)):
            if ident in self.st.vals and ident not in exclude:
                self.st.uses[ident] = self.st.uses.get(ident, 0) + 1

    def _check(self, t: Any, v: Val, stmt: str) -> None:
        if not isinstance(t, torch.Tensor):
            self._fail(f"{stmt}: produced {type(t).__name__}, not a tensor")
        if tuple(t.shape) != v.shape or str(t.dtype) != f"torch.{v.dtype}":
            self._fail(f"{stmt}: got {tuple(t.shape)} {t.dtype}, spec said {v.shape} {v.dtype}")
        if self.edge or t.numel() == 0:
            return
        d = t.detach()
        if d.is_floating_point() and not bool(torch.isfinite(d).all()):
            self._fail(f"{stmt}: non-finite values")
        lo, hi = float(d.min()), float(d.max())
        tol = 1e-5 + (2e-2 if v.dtype in ("float16", "bfloat16") else 1e-4) * max(
            abs(v.lo), abs(v.hi)
        )
        if lo < v.lo - tol or hi > v.hi + tol:
            self._fail(
                f"{stmt}: values in [{lo:.4g}, {hi:.4g}] outside claimed [{v.lo:.4g}, {v.hi:.4g}]"
            )
        if v.distinct and d.numel() > 1 and d.reshape(-1).unique().numel() != d.numel():
            self._fail(f"{stmt}: claimed distinct values but found ties")

    def _add_val(self, v: Val) -> Val:
        self.st.vals[v.name] = v
        self.st.order.append(v.name)
        self.st.uses.setdefault(v.name, 0)
        return v

    def _storage(self, view_of: Val | None) -> tuple[int, bool]:
        if view_of is not None:
            return view_of.storage, True
        self.st.next_storage += 1
        return self.st.next_storage, False

    # ------------------------------------------------------------------ emission API for specs
    def emit(
        self,
        expr: str,
        shape: tuple[int, ...],
        dtype: str,
        lo: float,
        hi: float,
        *,
        tag: str,
        exact: bool = False,
        distinct: bool = False,
        view_of: Val | None = None,
    ) -> Val:
        """Emit ``<name> = expr`` and return the new value (checked against the claims)."""
        return self.emit_multi(expr, [(tag, shape, dtype, lo, hi, exact, distinct)], view_of)[0]

    def emit_multi(
        self,
        expr: str,
        outs: list[tuple[str, tuple[int, ...], str, float, float, bool, bool]],
        view_of: Val | None = None,
    ) -> list[Val]:
        """Emit ``a, b = expr`` for an op with several results: (tag, shape, dtype, lo, hi,
        exact, distinct) each."""
        shape_ok = all(all(d >= 0 for d in o[1]) for o in outs)
        if not shape_ok:
            raise Reject("negative size")
        if not self.edge:
            for o in outs:
                if not fits(o[2], o[3], o[4]):
                    raise Reject(f"range [{o[3]:.3g}, {o[4]:.3g}] does not fit {o[2]}")
        names = [self.fresh_name(o[0]) for o in outs]
        target = ", ".join(names) + ("," if len(names) == 1 and len(outs) > 1 else "")
        stmt = f"{target} = {expr}"
        self._count_uses(stmt, set())
        self._exec(stmt)
        vals = []
        for name, (_tag, shape, dtype, lo, hi, exact, distinct) in zip(names, outs):
            storage, is_view = self._storage(view_of)
            v = Val(
                name,
                tuple(shape),
                dtype,
                float(lo),
                float(hi),
                exact,
                distinct and exact,
                "value",
                storage,
                is_view,
            )
            self._check(self.st.env.get(name), v, stmt)
            vals.append(self._add_val(v))
        self.st.lines.append(stmt)
        return vals

    def emit_sink(self, expr: str, *, tag: str) -> Val:
        """Emit ``<name> = expr`` as an output nothing else may consume (edge programs: NaN/inf
        or a wrapped integer, whose facts no spec could build on). Only its shape and dtype are
        known; they are read from the run."""
        name = self.fresh_name(tag)
        stmt = f"{name} = {expr}"
        self._count_uses(stmt, set())
        self._exec(stmt)
        t = self.st.env.get(name)
        if not isinstance(t, torch.Tensor):
            self._fail(f"{stmt}: produced {type(t).__name__}, not a tensor")
        storage, _ = self._storage(None)
        v = Val(name, tuple(t.shape), str(t.dtype).removeprefix("torch."), 0.0, 0.0, False,
                False, "value", storage, False)  # fmt: skip
        self.st.sinks.append(v)
        self.st.lines.append(stmt)
        return v

    def emit_inplace(self, x: Val, stmt: str, lo: float, hi: float, exact: bool = False) -> Val:
        """Emit an in-place statement on ``x`` (an intermediate that owns its storage).

        Every other value sharing ``x``'s storage is retired (its contents changed)."""
        if x.kind != "value" or x.is_view:
            raise Reject("in-place needs an intermediate that owns its storage")
        if not self.edge and not fits(x.dtype, lo, hi):
            raise Reject("in-place result does not fit")
        self._count_uses(stmt, {x.name})
        # mutate a private copy: a rollback must find the old contents in the snapshot
        self.st.env[x.name] = self.st.env[x.name].clone()
        self._exec(stmt)
        for name, v in list(self.st.vals.items()):
            if v.storage == x.storage and name != x.name:
                del self.st.vals[name]
        v = dataclasses.replace(x, lo=float(lo), hi=float(hi), exact=exact, distinct=False)
        self._check(self.st.env.get(x.name), v, stmt)
        self.st.vals[x.name] = v
        self.st.uses[x.name] = 0  # the new contents are unconsumed
        self.st.lines.append(stmt)
        return v

    def layer(self, tag: str, ctor: str) -> str:
        """Hold an ``nn`` module as an attribute built in ``__init__``; returns ``self.<name>``."""
        n = self.st.counters.get(f"self.{tag}", 0) + 1
        self.st.counters[f"self.{tag}"] = n
        name = f"{tag}{n}"
        with _TORCH_RNG, torch.random.fork_rng():
            torch.manual_seed(self.seed * 1000 + len(self.st.layers))
            try:
                obj = eval(ctor, self.st.env)
            except Exception as e:
                self._fail(f"{ctor}: {type(e).__name__}: {e}")
        self.st.layers.append((name, ctor))
        self.st.objs[name] = obj
        self._refresh_self()
        return f"self.{name}"

    def param(self, shape: tuple[int, ...], dtype: str, bound: float, tag: str = "weight") -> Val:
        """An ``nn.Parameter`` with values uniform in ``[-bound, bound]``."""
        dt = "" if dtype == "float32" else f", dtype={dtype_src(dtype)}"
        ctor = f"nn.Parameter((torch.rand({tuple(shape)}{dt}) * 2 - 1) * {fmt(bound)})"
        attr = self.layer(tag, ctor)
        return Val(attr, tuple(shape), dtype, -bound, bound, False, False, "param", 0, False)

    # ------------------------------------------------------------------ graph inputs
    def allowed(self, dtypes) -> list[str]:
        """``dtypes`` that ``--dtypes`` allows for new inputs (all of them for a forced op)."""
        ok = [d for d in dtypes if d in self.opts.dtypes]
        if not ok and not self.opts.ops:
            raise Reject("no allowed dtype")
        return ok or list(dtypes)

    def pick_dtype(self, choices: list[str] | tuple[str, ...]) -> str:
        choices = list(choices)
        weights = [_DTYPE_WEIGHT.get(d, 0.5) for d in choices]
        return self.rng.choices(choices, weights)[0]

    def sample_shape(self, rank: int) -> tuple[int, ...]:
        if self.boundary:
            return boundary_shape(self.rng, rank, self.opts.max_numel)
        cap = self.opts.max_dim_size
        for _ in range(20):
            shape = []
            for _ in range(rank):
                r = self.rng.random()
                if r < 0.08:
                    d = 1
                elif r < 0.5:
                    d = self.rng.choice([2, 3, 4, 5, 6, 8])
                else:
                    d = self.rng.randint(2, cap)
                shape.append(min(d, cap))
            if self.edge and shape and self.rng.random() < 0.05:
                shape[self.rng.randrange(rank)] = 0
            if self.edgy and shape and self.rng.random() < 0.08:  # empty tensors (row 21)
                shape[self.rng.randrange(rank)] = 0
            if math.prod(shape) <= self.opts.max_numel:
                return tuple(shape)
        return tuple([2] * rank)

    def _input_seed(self) -> int:
        return self.seed * 1000 + len(self.st.inputs) + 1

    def _add_input(self, name: str, src: str, v: Val) -> Val:
        self._exec(f"{name} = {src}")
        self._check(self.st.env[name], v, src)
        self.st.inputs.append(Input(v, src))
        return self._add_val(v)

    def new_input(
        self,
        shape: tuple[int, ...] | None = None,
        dtype: str = "float32",
        rank: int | None = None,
        lo: float | None = None,
        hi: float | None = None,
    ) -> Val:
        """A new data input of forward, built in ``get_inputs`` from its own seeded generator."""
        if shape is None:
            shape = self.sample_shape(rank if rank is not None else self.rng.randint(1, 3))
        k = self.st.n_data_inputs
        name = _INPUT_NAMES[k] if k < len(_INPUT_NAMES) else f"x{k}"
        gen = f"g.manual_seed({self._input_seed()})"
        shp = tuple(shape)
        halves = False
        if is_float(dtype) and (lo is None or hi is None) and self.edgy:
            if dtype in ("float32", "float64") and self.rng.random() < 0.5:
                ranges, weights = zip(*_EDGE_FLOAT_RANGES)
                pick = self.rng.choices(ranges, weights)[0]
                halves = pick is None
                lo, hi = (-20.0, 20.0) if pick is None else pick
        if halves:  # exact .5 ties (round half to even, floor/ceil/trunc at .5)
            src = f"torch.randint(-40, 41, {shp}, generator={gen}).to({dtype_src(dtype)}) * 0.5"
            distinct = False
        elif is_float(dtype):
            if lo is None or hi is None:
                lo, hi = self.rng.choice(_FLOAT_RANGES)
            dt = "" if dtype == "float32" else f", {dtype_src(dtype)}"
            src = f"distinct_values({shp}, {fmt(lo)}, {fmt(hi)}, {gen}{dt})"
            distinct = distinct_ok(dtype, lo, hi, math.prod(shp))
        elif dtype == "bool":
            lo, hi = 0.0, 1.0
            src = f"torch.rand({shp}, generator={gen}) > 0.5"
            distinct = False
        else:
            if lo is None or hi is None:
                lo, hi = _INT_RANGES[dtype]
            src = f"torch.randint({int(lo)}, {int(hi) + 1}, {shp}, generator={gen}, dtype={dtype_src(dtype)})"
            distinct = False
        if self.edge:
            src = f"with_edge_values({src}, {gen})"
            distinct = False
        self.st.n_data_inputs += 1
        v = Val(name, shp, dtype, float(lo), float(hi), True, distinct, "input", 0, False)
        return self._add_input(name, src, v)

    def index_input(self, shape: tuple[int, ...], high: int, unique_dim: int | None = None) -> Val:
        """An int64 index tensor in ``[0, high)``; with ``unique_dim`` no repeats along that dim."""
        name = self.fresh_name("idx")
        gen = f"g.manual_seed({self._input_seed()})"
        shp = tuple(shape)
        if unique_dim is not None:
            if shp[unique_dim] > high:
                raise Reject("not enough distinct indices")
            src = f"unique_indices({shp}, {unique_dim}, {high}, {gen})"
        else:
            src = f"torch.randint(0, {high}, {shp}, generator={gen})"
        v = Val(name, shp, "int64", 0.0, float(max(high - 1, 0)), True, False, "index", 0, False)
        return self._add_input(name, src, v)

    # ------------------------------------------------------------------ operands & glue
    def tensor(self, v: Val) -> torch.Tensor:
        """The concrete tensor behind ``v`` (for structural facts such as contiguity)."""
        return self.st.env[v.name]

    def live(self) -> list[Val]:
        return [self.st.vals[n] for n in self.st.order if n in self.st.vals]

    # ------------------------------------------------------------------ growing the graph
    def pick_spec(self) -> OpSpec:
        if self.edgy:
            weights = [s.weight * _EDGE_BOOST.get(s.name, 1.0) for s in self.specs]
            return self.rng.choices(self.specs, weights)[0]
        return self.rng.choices(self.specs, [s.weight for s in self.specs])[0]

    def _candidates(self, spec: OpSpec) -> list[Val]:
        live = [
            v for v in self.live() if v.kind in ("input", "value") and spec.accepts(v, self.edge)
        ]
        unused = [v for v in live if self.st.uses.get(v.name, 0) == 0]
        picks: list[Val] = []
        if unused and self.rng.random() < 0.7:
            picks.append(unused[-1] if self.rng.random() < 0.6 else self.rng.choice(unused))
        rest = [v for v in live if v not in picks]
        self.rng.shuffle(rest)
        return picks + rest[:3]

    def try_spec(self, spec: OpSpec) -> bool:
        for x in self._candidates(spec):
            if self._attempt(spec, lambda x=x: x):
                return True
        if self.st.n_data_inputs < self.opts.max_inputs or self.opts.ops:
            return self._attempt(spec, lambda: self._fresh_for(spec))
        return False

    def _attempt(self, spec: OpSpec, pick: Callable[[], Val]) -> bool:
        """Build ``spec`` on ``pick()``; on a decline, count it and roll the graph back."""
        snap = self.snapshot()
        try:
            spec.build(self, pick())
            self.st.ops.append(spec.name)
            return True
        except self._declines:
            self.rejects[spec.name] = self.rejects.get(spec.name, 0) + 1
            self.restore(snap)
            return False

    def _fresh_for(self, spec: OpSpec) -> Val:
        x = spec.fresh(self)
        if not spec.accepts(x, self.edge):
            raise Reject("fresh input not accepted")
        return x

    def run(self) -> None:
        with limits(EDGE_LIMIT if self.edgy else DTYPE_LIMIT):
            self._run()

    def _run(self) -> None:
        if not self.specs:
            raise ValueError(f"no op spec matches {self.opts.ops!r}")
        target = self.rng.randint(self.opts.min_nodes, self.opts.max_nodes)
        for _ in range(self.rng.randint(1, self.opts.max_inputs)):
            self.new_input(
                rank=self.rng.randint(1, self.opts.max_rank),
                dtype=self.pick_dtype(self.opts.dtypes),
            )
        nodes, attempts = 0, 0
        while nodes < target and attempts < 8 * target + 8:
            attempts += 1
            if self.try_spec(self.pick_spec()):
                nodes += 1
        if not any(v.kind == "value" for v in self.live()):
            x = self.live()[0]
            self.emit(f"{x.name}.clone()", x.shape, x.dtype, x.lo, x.hi, tag="out", exact=x.exact)
        if self.boundary:
            self.dynamic = dynamic_marks(self.rng, [i.val.shape for i in self.st.inputs])

    def outputs(self) -> list[Val]:
        vals = [v for v in self.live() if v.kind == "value"]
        sinks = [v for v in vals if self.st.uses.get(v.name, 0) == 0]
        if not sinks and not self.st.sinks:
            sinks = vals[-1:]
        forced = self.st.sinks[-self.opts.max_outputs :]
        room = self.opts.max_outputs - len(forced)
        return forced + (sinks[-room:] if room > 0 else [])
