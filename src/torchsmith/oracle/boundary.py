"""Boundary runs for the sensitivity probe: eager with every near-boundary decision flipped.

:class:`BoundaryMode` nudges the operands of discontinuous ops (comparisons, casts to integers,
floor/round/remainder, bucketize) that sit within ``margin`` machine epsilons of a boundary to
one side, rotates tie and near-tie groups in ranking ops (sort, topk, argmax, kthvalue, ...) so
every member changes place, and turns a pivoting factorization with a near-tie pivot
(``lu_factor``, ``linalg.lu``) into NaN for that matrix. Two runs, one per side, show which
outputs a different but correct rounding could flip. Runs inside workers only.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from torchsmith.oracle.perturb import HopMode, eps_of, is_hop, schema_args

aten = torch.ops.aten

# -- the mode ----------------------------------------------------------------------------------
_COMPARE = {aten.lt, aten.le, aten.gt, aten.ge}
_EQUAL = {aten.eq, aten.ne}
_ROUNDING = {aten.floor, aten.ceil, aten.round, aten.trunc, aten.frac}
_MODULO = {aten.remainder, aten.fmod, aten.floor_divide}
_ARG = {aten.argmax: True, aten.argmin: False}
_EXTREME = {aten.max: True, aten.min: False}


class BoundaryMode(HopMode):
    """Eager where every near-boundary decision goes the other way (``side`` +1 or -1).

    An operand within ``margin * eps * magnitude`` of a boundary is nudged by that much towards
    ``side`` before the decision; ties and near-ties in ranking ops are rotated by ``side``
    within their group, so every member of a tie group changes place; a pivoting
    factorization with a near-tie pivot returns NaN (and pivot 0) for that matrix.
    ``flipped`` counts the ops whose result changed.
    """

    def __init__(self, side: int, margin: float) -> None:
        super().__init__()
        self.side = 1 if side >= 0 else -1
        self.margin = margin
        self.flipped = 0

    def _nudge(self, x: torch.Tensor, scale: Any = None) -> torch.Tensor:
        x64 = x.double()
        mag = x64.abs() if scale is None else torch.maximum(x64.abs(), scale)
        step = (self.side * self.margin * eps_of(x.dtype)) * mag
        return torch.where(torch.isfinite(step), x64 + step, x64)

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if is_hop(func):
            return self.hop(func, args, kwargs)
        kwargs = dict(kwargs or {})
        real = func(*args, **kwargs)
        if func._schema.is_mutable:
            return real
        try:
            alt = self._alternative(func, args, kwargs, real)
        except Exception:  # a variant must never break the run: keep eager's decision
            return real
        if alt is None:
            return real
        if not _same_meta(alt, real):
            return real
        if not _equal(alt, real):
            self.flipped += 1
        return alt

    def _alternative(self, func: Any, args: Any, kwargs: dict[str, Any], real: Any) -> Any:
        packet = func.overloadpacket
        a = schema_args(func, args, kwargs)
        x = a.get("self", a.get("input"))
        if packet in _COMPARE or packet in _EQUAL:
            return self._compare(packet, x, a["other"], real)
        if packet is aten._to_copy:
            dt = a.get("dtype")
            if (
                isinstance(x, torch.Tensor)
                and x.is_floating_point()
                and isinstance(dt, torch.dtype)
                and not dt.is_floating_point
                and not dt.is_complex
                and dt != torch.bool
            ):
                return self._nudge(x).to(dt)
            return None
        if packet in _ROUNDING or packet in _MODULO or packet is aten.div:
            if not (isinstance(x, torch.Tensor) and x.is_floating_point()):
                return None
            if packet is aten.div and a.get("rounding_mode") is None:
                return None
            other = dict(a)
            other["self"] = self._nudge(x)
            if "other" in other and isinstance(other["other"], torch.Tensor):
                other["other"] = other["other"].double()
            names = [arg.name for arg in func._schema.arguments]
            pos = [other[n] for n in names if n in other and not _kwarg_only(func, n)]
            kw = {n: other[n] for n in names if n in other and _kwarg_only(func, n)}
            alt = func(*pos, **kw).to(real.dtype)
            if packet in (aten.remainder, aten.fmod, aten.frac):
                # continuous away from the boundary: take the nudged value only where it jumps
                d = a.get("other", 1.0)
                d = d.double() if isinstance(d, torch.Tensor) else float(d)
                step = torch.floor if packet is aten.remainder else torch.trunc
                jumped = step(other["self"] / d) != step(x.double() / d)
                alt = torch.where(jumped, alt, real)
            return alt
        if packet in (aten.bucketize, aten.histc):
            if not (isinstance(x, torch.Tensor) and x.is_floating_point()):
                return None
            rest = list(args[1:])
            if packet is aten.bucketize and isinstance(rest[0], torch.Tensor):
                rest[0] = rest[0].double()
            return func(self._nudge(x), *rest, **kwargs)
        if packet is aten.searchsorted and isinstance(a.get("self"), torch.Tensor):
            seq, vals = a["sorted_sequence"], a["self"]
            if not vals.is_floating_point():
                return None
            return func(seq.double(), self._nudge(vals), *args[2:], **kwargs)
        if packet is aten.sort:
            return self._sort(x, a.get("dim", -1), bool(a.get("descending", False)), real)
        if packet is aten.topk:
            return self._topk(x, a["k"], a.get("dim", -1), bool(a.get("largest", True)), real)
        if packet is aten.kthvalue:
            return self._kth(x, a["k"], a.get("dim", -1), bool(a.get("keepdim", False)), real)
        if packet is aten.median and func._overloadname == "dim":
            n = x.shape[a["dim"]] if x.dim() else 1
            return self._kth(x, (n + 1) // 2, a["dim"], bool(a.get("keepdim", False)), real)
        if packet in _ARG:
            return self._argext(x, a.get("dim"), bool(a.get("keepdim", False)), _ARG[packet], real)
        if packet in _EXTREME and func._overloadname == "dim":
            idx = self._argext(x, a["dim"], True, _EXTREME[packet], None)
            vals = x.gather(a["dim"], idx)
            if not a.get("keepdim", False):
                idx, vals = idx.squeeze(a["dim"]), vals.squeeze(a["dim"])
            return (vals, idx)
        if packet is aten.linalg_lu_factor_ex:
            return self._lu_factor(a["A"], real)
        if packet is aten.linalg_lu:
            return self._lu(a["A"], real)
        return None

    # comparisons -------------------------------------------------------------------------------
    def _compare(self, packet: Any, x: Any, other: Any, real: torch.Tensor) -> Any:
        xt = isinstance(x, torch.Tensor)
        ot = isinstance(other, torch.Tensor)
        floating = (xt and (x.is_floating_point())) or (ot and other.is_floating_point())
        floating = floating or isinstance(other, float)
        if not floating or not xt:
            return None
        dtype = torch.result_type(x, other)
        if not dtype.is_floating_point:
            return None
        a64 = x.double()
        b64 = other.double() if ot else torch.tensor(float(other), dtype=torch.float64)
        room = self.margin * eps_of(dtype) * torch.maximum(a64.abs(), b64.abs())
        room = torch.where(torch.isfinite(room), room, torch.zeros_like(room))
        if packet in _COMPARE:
            name = {aten.lt: "lt", aten.le: "le", aten.gt: "gt", aten.ge: "ge"}[packet]
            return getattr(torch, name)(a64 + self.side * room, b64)
        exact = a64 == b64
        near = (a64 - b64).abs() <= room
        eq = (exact | near) if self.side > 0 else (exact & ~(near & (room > 0)))
        return eq if packet is aten.eq else ~eq

    # ranking -----------------------------------------------------------------------------------
    def _tol(self, x: torch.Tensor) -> float:
        return self.margin * eps_of(x.dtype)

    def _groups(self, vals: list[float], tol: float) -> list[tuple[int, int]]:
        """Maximal runs [a, b) of consecutive values that are equal or within ``tol``."""
        out, start = [], 0
        for j in range(1, len(vals) + 1):
            if j < len(vals) and _close(vals[j - 1], vals[j], tol):
                continue
            if j - start >= 2:
                out.append((start, j))
            start = j
        return out

    def _rotate(self, order: list[int], vals: list[float], tol: float) -> list[int]:
        new = list(order)
        for a, b in self._groups(vals, tol):
            seg = order[a:b]
            new[a:b] = seg[1:] + seg[:1] if self.side > 0 else seg[-1:] + seg[:-1]
        return new

    def _rows(self, x: torch.Tensor, dim: int) -> tuple[torch.Tensor, int]:
        if x.dim() == 0:
            return x.reshape(1, 1), 0
        dim = dim % x.dim()
        return x.movedim(dim, -1).reshape(-1, x.shape[dim]), dim

    def _sort(self, x: torch.Tensor, dim: int, descending: bool, real: Any) -> Any:
        vals, idx = real
        if x.dim() == 0:
            return None
        rv, d = self._rows(vals, dim)
        ri, _ = self._rows(idx, dim)
        tol = self._tol(x)
        new = [
            self._rotate(o, v, tol) for o, v in zip(ri.tolist(), rv.double().tolist(), strict=True)
        ]
        moved_shape = list(idx.movedim(d, -1).shape)
        new_idx = (
            torch.tensor(new, dtype=idx.dtype, device=x.device).reshape(moved_shape).movedim(-1, d)
        )
        return (x.gather(d, new_idx), new_idx)

    def _topk(self, x: torch.Tensor, k: int, dim: int, largest: bool, real: Any) -> Any:
        if x.dim() == 0:
            return None
        vals, idx = real
        d = dim % x.dim()
        rx, _ = self._rows(x, d)
        ri, _ = self._rows(idx, d)
        tol = self._tol(x)
        rows = []
        for xs, top in zip(rx.double().tolist(), ri.tolist(), strict=True):
            chosen = set(top)
            rest = sorted(
                (j for j in range(len(xs)) if j not in chosen),
                key=lambda j: (-xs[j] if largest else xs[j], j),
            )
            order = top + rest
            rows.append(self._rotate(order, [xs[j] for j in order], tol)[:k])
        moved_shape = list(idx.movedim(d, -1).shape)
        new_idx = (
            torch.tensor(rows, dtype=idx.dtype, device=x.device).reshape(moved_shape).movedim(-1, d)
        )
        return (x.gather(d, new_idx), new_idx)

    def _kth(self, x: torch.Tensor, k: int, dim: int, keepdim: bool, real: Any) -> Any:
        if x.dim() == 0:
            return None
        d = dim % x.dim()
        _, order = torch.sort(x, dim=d, stable=True)
        rx, _ = self._rows(x, d)
        ro, _ = self._rows(order, d)
        _, ridx = self._rows(real[1].unsqueeze(d) if not keepdim else real[1], d)
        tol = self._tol(x)
        picks = []
        for xs, o, chosen in zip(rx.double().tolist(), ro.tolist(), ridx.tolist(), strict=True):
            if chosen[0] in o:  # put eager's pick at position k-1 so rotation moves it
                o.remove(chosen[0])
                o.insert(k - 1, chosen[0])
            picks.append(self._rotate(o, [xs[j] for j in o], tol)[k - 1])
        shape = list(x.movedim(d, -1).shape[:-1]) + [1]
        idx = torch.tensor(picks, dtype=torch.int64, device=x.device).reshape(shape).movedim(-1, d)
        vals = x.gather(d, idx)
        if not keepdim:
            idx, vals = idx.squeeze(d), vals.squeeze(d)
        return (vals, idx)

    def _argext(
        self, x: torch.Tensor, dim: int | None, keepdim: bool, largest: bool, real: Any
    ) -> Any:
        flat = dim is None or x.dim() == 0
        d = 0 if flat else dim % x.dim()
        src = x.reshape(1, -1) if flat else None
        rx, _ = (src, 1) if flat else self._rows(x, d)
        tol = self._tol(x)
        picks = []
        for xs in rx.double().tolist():
            best = _extreme_index(xs, largest)
            group = [j for j, v in enumerate(xs) if _close(v, xs[best], tol)]
            if len(group) < 2:
                picks.append(best)
                continue
            pos = group.index(best) if best in group else 0
            picks.append(group[(pos + self.side) % len(group)])
        if flat:
            out = torch.tensor(picks[0], dtype=torch.int64, device=x.device)
            return out.reshape(real.shape) if real is not None else out
        shape = list(x.movedim(d, -1).shape[:-1]) + [1]
        idx = torch.tensor(picks, dtype=torch.int64, device=x.device).reshape(shape).movedim(-1, d)
        return idx if keepdim else idx.squeeze(d)

    # pivoting ----------------------------------------------------------------------------------
    def _near_tie_pivots(self, lower: torch.Tensor, n: int, dtype: torch.dtype) -> torch.Tensor:
        """Per matrix: some multiplier |l_ij| is within rounding of 1 (a near-tie pivot)."""
        strict = torch.tril(lower, diagonal=-1).abs().double()
        tol = self.margin * eps_of(dtype) * max(n, 1)
        return (strict >= 1 - tol).flatten(-2).any(-1)

    def _lu_factor(self, A: torch.Tensor, real: Any) -> Any:
        LU, piv, info = real
        if A.dim() < 2 or not A.is_floating_point():
            return None
        bad = self._near_tie_pivots(LU, A.shape[-1], A.dtype)
        if not bad.any():
            return None
        LU = LU.clone()
        piv = piv.clone()
        LU[bad] = float("nan")
        piv[bad] = 0
        return (LU, piv, info)

    def _lu(self, A: torch.Tensor, real: Any) -> Any:
        P, L, U = real
        if A.dim() < 2 or not A.is_floating_point():
            return None
        bad = self._near_tie_pivots(L, A.shape[-1], A.dtype)
        if not bad.any():
            return None
        P, L, U = P.clone(), L.clone(), U.clone()
        for t in (P, L, U):
            t[bad] = float("nan")
        return (P, L, U)


def _kwarg_only(func: Any, name: str) -> bool:
    return any(a.name == name and a.kwarg_only for a in func._schema.arguments)


def _close(a: float, b: float, tol: float) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if a == b:
        return True
    return abs(a - b) <= tol * max(abs(a), abs(b))


def _extreme_index(xs: list[float], largest: bool) -> int:
    for j, v in enumerate(xs):  # NaN wins, as in eager
        if math.isnan(v):
            return j
    best = 0
    for j, v in enumerate(xs):
        if (v > xs[best]) if largest else (v < xs[best]):
            best = j
    return best


def _same_meta(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and a.dtype == b.dtype
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same_meta(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b)


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor):
        if torch.equal(a, b):
            return True
        return a.is_floating_point() and bool(torch.allclose(a, b, 0, 0, equal_nan=True))
    if isinstance(a, list | tuple):
        return all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return a == b
