"""Record what every intermediate value of ``forward`` is: shape, dtype and range.

The cut pass replaces an intermediate by a fresh input of the same shape and dtype, drawn from a
seeded generator over the same range. Those facts come from running the program, which only
happens in a worker: :func:`instrument` (parent side, pure AST) inserts a recording call after
each top-level statement of ``forward``; :func:`record_values` (worker side, a ``"call"`` job)
runs the instrumented program once in eager mode and returns the records.
"""

from __future__ import annotations

import ast
import math
from typing import Any

from torchsmith.program.format import Program
from torchsmith.reduce.source import assigned_names, has_effects, loads, unparse, view

RECORD = "__torchsmith_record__"
FUNCTION = "torchsmith.reduce.probe:record_values"

#: One record: the index of the top-level forward statement after which the value was seen
#: (-1: forward's parameters on entry), the name, and its description.
Records = list[tuple[int, str, dict[str, Any]]]


def _record_call(index: int, names: list[str]) -> ast.stmt:
    calls = ", ".join(f"{RECORD}({index}, {n!r}, {n})" for n in names)
    return ast.parse(f"({calls},)").body[0]


def instrument(program: Program) -> Program | None:
    """``program`` with a recording call after each top-level statement of forward, for the
    names the statement binds (or, for an effect such as ``x.add_(1)``, the names it reads).
    None when the program has no forward to instrument."""
    v = view(program.source, program.model)
    fwd = v.forward
    if fwd is None:
        return None
    params = [a.arg for a in fwd.args.args[1:]]
    body: list[ast.stmt] = []
    if params:
        body.append(_record_call(-1, params))
    for i, stmt in enumerate(fwd.body):
        body.append(stmt)
        if isinstance(stmt, ast.Return):
            continue
        names = assigned_names(stmt)
        if not names and has_effects(stmt) and isinstance(stmt, ast.Expr):
            names = sorted(loads(stmt) & _bound_before(fwd.body[:i], params))
        if names:
            body.append(_record_call(i, names))
    fwd.body = body
    return Program(
        source=unparse(v.tree),
        model=program.model,
        name=program.name,
        origin=program.origin,
        path=None,
        notes=program.notes,
    )


def _bound_before(stmts: list[ast.stmt], params: list[str]) -> set[str]:
    out = set(params)
    for s in stmts:
        out |= set(assigned_names(s))
    return out


def describe(value: Any) -> dict[str, Any]:
    """A JSON-safe description of one value (runs in the worker)."""
    import torch

    if isinstance(value, torch.Tensor):
        if value.is_sparse or value.is_quantized or value.is_complex():
            return {"kind": "other", "type": "tensor-" + str(value.layout)}
        t = value.detach()
        d: dict[str, Any] = {
            "kind": "tensor",
            "shape": list(t.shape),
            "dtype": str(t.dtype).removeprefix("torch."),
        }
        if t.numel() == 0:
            return d
        if t.dtype == torch.bool:
            d["true_frac"] = float(t.float().mean())
        elif t.is_floating_point():
            finite = t[torch.isfinite(t)].double()
            if finite.numel():
                d["lo"], d["hi"] = float(finite.min()), float(finite.max())
            d["nonfinite"] = bool(finite.numel() != t.numel())
        else:
            d["lo"], d["hi"] = int(t.min()), int(t.max())
        return d
    if isinstance(value, bool | int) or (isinstance(value, float) and math.isfinite(value)):
        return {"kind": "scalar", "value": value}
    if value is None:
        return {"kind": "none"}
    if isinstance(value, tuple | list | torch.Size) and all(type(x) is int for x in value):
        return {"kind": "ints", "value": list(value)}
    return {"kind": "other", "type": type(value).__name__}


def record_values(program: Program, options: Any, emit: Any) -> dict[str, Any]:
    """Worker side: run the instrumented ``program`` once eagerly and return its records."""
    from torchsmith.oracle import runtime

    records: Records = []

    def rec(index: int, name: str, value: Any) -> None:
        records.append((index, name, describe(value)))

    loaded = runtime.load(program, options.seed)
    loaded.module.__dict__[RECORD] = rec
    dtype = runtime.resolve_dtype(options.dtype)
    runtime.run_model(loaded, options, backend=None, dtype=dtype, grad=False)
    return {"records": records}


def value_at(records: Records, name: str, index: int) -> dict[str, Any] | None:
    """The description of ``name`` as it stands after top-level statement ``index``: the last
    record at or before it. None when never seen or when it was recorded inside a loop (seen
    twice at one index)."""
    found: dict[str, Any] | None = None
    seen: set[int] = set()
    for i, n, desc in records:
        if n != name or i > index:
            continue
        if i in seen:
            return None
        seen.add(i)
        found = desc
    return found
