"""Outputs as users' models return them: the leaves of any nested result, with their paths.

A model may return a tensor, a tuple, a dict, a named tuple, a dataclass, a HuggingFace
``ModelOutput`` (an ``OrderedDict`` that is also a dataclass) holding a cache object
(``DynamicCache``: ``cache.layers[i].keys`` / ``.values``), or any object of its own. The judge
compares leaves, so :func:`flatten` walks all of these generically:

- tensors are leaves (subclasses and parameters included); so are *values*: ``int``, ``float``,
  ``complex``, ``bool``, ``str``, ``bytes``, ``None``, ``torch.dtype``, ``torch.device``,
  ``torch.layout``, ``torch.memory_format``, enums, ``range``, ``slice`` and sets/frozensets
  of values;
- ``list``, ``tuple`` (named tuples too) and ``torch.Size`` by index (``out[1]``), ``dict`` (any
  mapping subclass, ``ModelOutput`` included) by key in ``str`` order (``out['logits']``),
  dataclasses by field (``out.loss``), numpy arrays and scalars as tensors and numbers;
- any other object by its attributes (``__dict__`` in name order, then ``__slots__``):
  ``out['cache'].layers[0].keys``.

Objects without value semantics are walked, never compared by identity or ``repr``: two runs
build two distinct cache objects holding equal tensors, and those must read as equal. What
cannot be walked becomes an :class:`Opaque` leaf compared by its type name only (a function, a
class, a module, a generator, an object with nothing inside, what lies past ``MAX_DEPTH``). An
object met again below itself (a cycle) becomes a :class:`Seen` leaf naming where it was first
met, so the walk ends; an object shared by two paths is walked at each (a compiled run may copy
what eager shares, the contents are what count).

Invariants: the walk is deterministic for equal structures, finite (depth and leaf bounds, cycle
guard),
never calls user code other than attribute reads of plain ``__dict__``/``__slots__`` entries,
and yields only tensors, values, :class:`Opaque` and :class:`Seen` as leaves.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import types
from typing import Any

import torch

Leaf = tuple[str, Any]

#: How deep the walk goes below the output (HF outputs need about 5: out, cache, layers, [i],
#: keys); anything deeper is one opaque leaf.
MAX_DEPTH = 16
#: At most this many leaves per output (an object graph shared many times over is walked at
#: each path); what is left becomes opaque leaves.
MAX_LEAVES = 100_000

_VALUES = (
    int, float, complex, bool, str, bytes, type(None), torch.dtype, torch.device, torch.layout,
    torch.memory_format, enum.Enum, range, slice, type(Ellipsis),
)  # fmt: skip


@dataclasses.dataclass(frozen=True)
class Opaque:
    """A leaf that cannot be walked: equal when the type (and the reason) is the same."""

    kind: str

    def __repr__(self) -> str:
        return f"<{self.kind}>"


@dataclasses.dataclass(frozen=True)
class Seen:
    """An object met again below itself (a cycle), first met at ``path``."""

    path: str

    def __repr__(self) -> str:
        return f"<same object as {self.path}>"


def is_value(x: Any) -> bool:
    """A leaf compared by ``==``: numbers, strings, None, dtypes, devices, enums, value sets."""
    if isinstance(x, _VALUES):
        return True
    if isinstance(x, set | frozenset):
        return all(isinstance(v, _VALUES) for v in x)
    return False


def _qualname(obj: Any) -> str:
    t = obj if isinstance(obj, type) else type(obj)
    return f"{t.__module__}.{t.__qualname__}"


def _numpy(obj: Any) -> tuple[bool, Any]:
    """(True, converted) for a numpy array or scalar; (False, None) for anything else."""
    mod = type(obj).__module__
    if not mod.startswith("numpy"):
        return False, None
    try:
        import numpy as np
    except ImportError:  # pragma: no cover - numpy is a dependency
        return False, None
    if isinstance(obj, np.ndarray):
        try:
            return True, torch.from_numpy(obj)
        except TypeError:
            return True, Opaque(f"ndarray {obj.dtype}")
    if isinstance(obj, np.generic):
        return True, obj.item()
    return False, None


def _attributes(obj: Any) -> list[tuple[str, Any]] | None:
    """An object's own state: ``__dict__`` entries by name, then filled ``__slots__``."""
    out: list[tuple[str, Any]] = []
    d = getattr(obj, "__dict__", None)
    if isinstance(d, dict):
        out += sorted(((str(k), v) for k, v in d.items()), key=lambda kv: kv[0])
    names = []
    for klass in type(obj).__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names += [slots] if isinstance(slots, str) else list(slots)
    for name in names:
        if name in ("__dict__", "__weakref__") or any(name == k for k, _ in out):
            continue
        try:
            out.append((name, object.__getattribute__(obj, name)))
        except AttributeError:
            continue
    if d is None and not names:
        return None
    return out


def flatten(obj: Any, path: str = "out") -> list[Leaf]:
    """Leaves of a nested output with their paths: ``out[0]``, ``out['k']``, ``out.attr``."""
    leaves: list[Leaf] = []
    _walk(obj, path, leaves, {}, 0)
    return leaves


_OPAQUE_KINDS = (
    type,
    types.FunctionType,
    types.MethodType,
    types.BuiltinFunctionType,
    types.ModuleType,
    types.GeneratorType,
)


def _walk(obj: Any, path: str, leaves: list[Leaf], active: dict[int, str], depth: int) -> None:
    """``active``: the objects on the way down to ``obj`` (the cycle guard). An object shared
    by two paths is walked at each (runs may share or copy it; its contents are what count)."""
    if isinstance(obj, torch.Tensor) or is_value(obj):
        leaves.append((path, obj))
        return
    found, conv = _numpy(obj)
    if found:
        leaves.append((path, conv))
        return
    if isinstance(obj, torch.Size):
        leaves.extend((f"{path}[{i}]", int(n)) for i, n in enumerate(obj))
        return
    if id(obj) in active:
        leaves.append((path, Seen(active[id(obj)])))
        return
    if depth >= MAX_DEPTH or len(leaves) >= MAX_LEAVES:
        leaves.append((path, Opaque(f"limit: {_qualname(obj)}")))
        return
    if isinstance(obj, _OPAQUE_KINDS):
        leaves.append((path, Opaque(_qualname(obj))))
        return
    active[id(obj)] = path
    try:
        if isinstance(obj, list | tuple):
            for i, o in enumerate(obj):
                _walk(o, f"{path}[{i}]", leaves, active, depth + 1)
        elif isinstance(obj, dict):
            for k in sorted(obj, key=str):
                _walk(obj[k], f"{path}[{k!r}]", leaves, active, depth + 1)
        elif dataclasses.is_dataclass(obj):
            for f in dataclasses.fields(obj):
                _walk(getattr(obj, f.name, None), f"{path}.{f.name}", leaves, active, depth + 1)
        else:
            attrs = _attributes(obj)
            if not attrs:  # nothing inside to compare: its kind is all there is
                leaves.append((path, Opaque(_qualname(obj))))
            for name, value in attrs or ():
                _walk(value, f"{path}.{name}", leaves, active, depth + 1)
    finally:
        del active[id(obj)]


def structure(obj: Any) -> str:
    """The container shape of an output: ``tuple(Tensor, list(int, None))``; leaves by kind.

    Eager and compiled must return the same containers (a ``torch.Size`` is not a ``tuple``, a
    ``list`` is not a ``tuple``, a named tuple keeps its class, an object keeps its class); the
    paths of :func:`flatten` carry the rest (an object's attributes, a dict's keys).
    """
    return _structure(obj, 0, set())


def _structure(obj: Any, depth: int, active: set[int]) -> str:
    if isinstance(obj, torch.Tensor):
        return "Tensor"
    if isinstance(obj, torch.Size):
        return "Size"
    if isinstance(obj, bool):
        return "bool"
    if isinstance(obj, int | float):
        return "number"
    if is_value(obj) or depth >= MAX_DEPTH or id(obj) in active:
        return type(obj).__name__
    active.add(id(obj))
    try:
        if isinstance(obj, list | tuple):
            inner = ", ".join(_structure(o, depth + 1, active) for o in obj)
            return f"{type(obj).__name__}({inner})"
        if isinstance(obj, dict):
            items = (
                f"{k!r}: {_structure(obj[k], depth + 1, active)}" for k in sorted(obj, key=str)
            )
            return "dict(" + ", ".join(items) + ")"
        return type(obj).__name__
    finally:
        active.discard(id(obj))


def _differs(x: Any, y: Any) -> dict[str, Any] | None:
    """How two leaves of two runs differ (None when bitwise equal, NaN equal to NaN)."""
    if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
        if x.shape != y.shape or x.dtype != y.dtype or x.is_meta != y.is_meta:
            return {"first": _short(x), "second": _short(y)}
        if x.layout != y.layout:
            return {"first": f"{_short(x)} {x.layout}", "second": f"{_short(y)} {y.layout}"}
        if x.layout != torch.strided and not x.is_meta:  # sparse: torch.equal has no kernel
            x, y = x.to_dense(), y.to_dense()
        if x.is_meta or torch.equal(x, y):
            return None
        if x.is_floating_point() and torch.allclose(x, y, 0, 0, equal_nan=True):
            return None
        return _tensor_figures(x, y)
    if isinstance(x, float) and isinstance(y, float):
        if x == y or (math.isnan(x) and math.isnan(y)):
            return None
        return {"first": x, "second": y, "max_abs": abs(x - y)}
    if type(x) is not type(y) or isinstance(x, torch.Tensor) or x != y:
        return {"first": repr(x)[:200], "second": repr(y)[:200]}
    return None


def _short(x: Any) -> str:
    if isinstance(x, torch.Tensor):
        return f"Tensor{list(x.shape)} {str(x.dtype).removeprefix('torch.')}"
    return type(x).__name__


def _tensor_figures(x: torch.Tensor, y: torch.Tensor) -> dict[str, Any]:
    wide = torch.complex128 if x.is_complex() else torch.float64
    a, b = x.detach().cpu().to(wide), y.detach().cpu().to(wide)
    both_nan = torch.isnan(a) & torch.isnan(b)
    differ = (a != b) & ~both_nan
    d = (a - b).abs()[differ & torch.isfinite(a) & torch.isfinite(b)]
    rel = d / b.abs()[differ & torch.isfinite(a) & torch.isfinite(b)].clamp_min(1e-30)
    return {
        "differ": int(differ.sum()),
        "numel": a.numel(),
        "max_abs": float(d.max()) if d.numel() else float("inf"),
        "max_rel": float(rel.max()) if rel.numel() else float("inf"),
    }


def difference(a: Any, b: Any, prefix: str = "out") -> dict[str, Any] | None:
    """The first leaf where two runs differ, with the size of the difference; None when the
    runs are identical (bitwise, NaN equal to NaN; structure and paths included).

    The result names the leaf (``output``: its path) and, for tensors, how many values differ
    and by how much (``max_abs``, ``max_rel`` over the finite ones, ``inf`` when only non-finite
    values differ), for a ``nondeterministic`` verdict's evidence."""
    la, lb = flatten(a, prefix), flatten(b, prefix)
    pa, pb = [p for p, _ in la], [p for p, _ in lb]
    if pa != pb:
        first = next((i for i, (x, y) in enumerate(zip(pa, pb)) if x != y), min(len(pa), len(pb)))
        where = pa[first] if first < len(pa) else pb[first]
        return {"output": where, "structure": f"{len(pa)} vs {len(pb)} leaves"}
    for (path, x), (_, y) in zip(la, lb):
        d = _differs(x, y)
        if d is not None:
            return {"output": path, **d}
    return None
