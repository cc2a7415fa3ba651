"""The cut pass: intermediate values become new inputs (or constants), their producers go.

PyTorch's minifier does this on FX graphs with the saved eager values; at the source level the
values must be reproducible by a standalone script, so a tensor becomes a fresh input of the same
shape and dtype drawn from its own seeded generator over the recorded range
(``torch.empty(4, 8).uniform_(-2.1, 3.5, generator=torch.Generator().manual_seed(2))``), and a
Python scalar or a shape becomes a literal. The records come from one eager run of the current
program in a worker (:mod:`torchsmith.reduce.probe`).

Runs of statements are cut whole first (all but the statements that produce the outputs), then
halves, quarters, ..., single statements.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterator
from typing import Any

from torchsmith.reduce.passes.base import Candidate, Context, tidy
from torchsmith.reduce.passes.forward import chunks
from torchsmith.reduce.probe import Records, value_at
from torchsmith.reduce.source import Substitute, assigned_names, dce, loads, stores, unparse

_INT_DTYPES = {"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"}
_FLOAT_DTYPES = {"float16", "bfloat16", "float32", "float64"}


def _round_out(x: float, up: bool) -> float:
    """Round away from the inside of the range to two significant digits: a readable bound."""
    if x == 0 or not math.isfinite(x):
        return 0.0
    exp = math.floor(math.log10(abs(x))) - 1
    scale = 10.0**exp
    r = (math.ceil if up else math.floor)(x / scale) * scale
    return float(f"{r:.3g}")


def input_source(desc: dict[str, Any], seed: int) -> str | None:
    """Python source for a fresh, seeded tensor like ``desc``; None when none can be made."""
    if desc.get("kind") != "tensor":
        return None
    shape = tuple(desc["shape"])
    dtype = desc["dtype"]
    gen = f"generator=torch.Generator().manual_seed({seed})"
    dt = "" if dtype == "float32" else f", dtype=torch.{dtype}"
    if math.prod(shape) == 0:
        return f"torch.empty({shape!r}{dt})"
    if dtype == "bool":
        p = min(max(round(float(desc.get("true_frac", 0.5)), 2), 0.01), 0.99)
        return f"torch.rand({shape!r}, {gen}) < {p}"
    if dtype in _INT_DTYPES:
        lo, hi = int(desc.get("lo", 0)), int(desc.get("hi", 0))
        hi = min(hi, (1 << 62))
        return f"torch.randint({lo}, {hi + 1}, {shape!r}, {gen}{dt})"
    if dtype in _FLOAT_DTYPES:
        lo = _round_out(float(desc.get("lo", -1.0)), up=False)
        hi = _round_out(float(desc.get("hi", 1.0)), up=True)
        if lo == hi:
            return f"torch.full({shape!r}, {lo!r}{dt})"
        return f"torch.empty({shape!r}{dt}).uniform_({lo!r}, {hi!r}, {gen})"
    return None


def literal(desc: dict[str, Any]) -> ast.expr | None:
    """A Python scalar or shape as a literal expression."""
    if desc.get("kind") == "scalar":
        return ast.Constant(desc["value"])
    if desc.get("kind") == "ints":
        return ast.Tuple(elts=[ast.Constant(int(x)) for x in desc["value"]], ctx=ast.Load())
    if desc.get("kind") == "none":
        return ast.Constant(None)
    return None


def cut(ctx: Context, records: Records, start: int, stop: int) -> str | None:
    """The source with forward statements ``[start, stop)`` cut; None when a value they leave
    behind cannot be replaced (a list of tensors, an object, a value recorded in a loop)."""
    v = ctx.view()
    fwd = v.forward
    params = v.forward_params()
    lst = v.inputs_list()
    if fwd is None or params is None or lst is None or len(lst.elts) != len(params):
        return None
    body = fwd.body
    gone = body[start:stop]
    later = body[stop:]
    needed: list[str] = []
    for s in gone:
        for name in assigned_names(s) or sorted(stores(s)):
            if name not in needed and any(name in loads(t) for t in later):
                needed.append(name)
    if not needed:
        return None
    literals: dict[str, ast.expr] = {}
    new_inputs: list[tuple[str, str]] = []
    taken = {a.arg for a in fwd.args.args}
    for name in needed:
        desc = value_at(records, name, stop - 1)
        if desc is None:
            return None
        lit = literal(desc)
        if lit is not None:
            literals[name] = lit
            continue
        src = input_source(desc, seed=len(lst.elts) + len(new_inputs))
        if src is None or name in taken:
            return None
        new_inputs.append((name, src))
    fwd.body = body[:start] + [Substitute(literals).visit(s) for s in later]
    for name, src in new_inputs:
        fwd.args.args.append(ast.arg(arg=name))
        lst.elts.append(ast.parse(src, mode="eval").body)
    tidy(v)
    return unparse(v.tree)


def cut_values(ctx: Context) -> Iterator[Candidate]:
    fwd = ctx.view().forward
    if fwd is None or not fwd.body:
        return
    body = fwd.body
    ret = body[-1] if isinstance(body[-1], ast.Return) else None
    n = len(body) - (1 if ret is not None else 0)
    # Statements that produce the returned names stay: cutting them leaves an identity.
    out: set[str] = set()
    if ret is not None and ret.value is not None:
        elts = ret.value.elts if isinstance(ret.value, ast.Tuple | ast.List) else [ret.value]
        out = {e.id for e in elts if isinstance(e, ast.Name)}
    last = n
    while last > 0 and set(assigned_names(body[last - 1])) & out:
        last -= 1
    if last == 0:
        return
    records = ctx.probe()
    if records is None:
        return
    for start, stop in chunks(last):
        src = cut(ctx, records, start, stop)
        if src is not None:
            yield f"cut statements {start}..{stop - 1} into inputs", src


def simplify_inputs(ctx: Context) -> Iterator[Candidate]:
    """Inputs built by helper code (``distinct_values(...)``, a chain of ops in ``get_inputs``)
    become plain seeded tensors of the recorded shape, dtype and range; the helper code then
    goes with the dead code. All inputs at once first, then one by one."""
    from torchsmith.reduce.passes.cleanup import unused_globals

    v0 = ctx.view()
    params = v0.forward_params()
    lst = v0.inputs_list()
    if params is None or lst is None or len(lst.elts) != len(params) or v0.get_inputs is None:
        return
    records = ctx.probe()
    if records is None:
        return
    fresh: dict[int, str] = {}
    for i, p in enumerate(params):
        desc = value_at(records, p.arg, -1)
        src = input_source(desc, seed=i) if desc is not None else None
        if src is not None and ast.unparse(lst.elts[i]) != src:
            fresh[i] = src
    groups = [sorted(fresh)] if len(fresh) > 1 else []
    for idxs in groups + [[i] for i in sorted(fresh)]:
        v = ctx.view()
        elts = v.inputs_list().elts  # type: ignore[union-attr]
        for i in idxs:
            elts[i] = ast.parse(fresh[i], mode="eval").body
        fn = v.get_inputs
        assert fn is not None
        fn.body = dce(fn.body)
        unused_globals(v)
        names = ", ".join(params[i].arg for i in idxs)
        yield f"plain seeded input for {names}", unparse(v.tree)
