"""Forward passes: fewer outputs, an earlier value returned, statements dropped, values folded.

* :func:`drop_outputs`: return one output alone (each in turn), then all but one;
* :func:`return_value`: return an intermediate value instead, earliest first (PyTorch's minifier
  calls it "truncate suffix"); dead code after it disappears;
* :func:`drop_statements`: delete runs of statements, halving the run length (ddmin); used for
  statements with effects that dead-code elimination must keep (``x.add_(1)``, ``if``);
* :func:`fold`: ``v = e`` read once, by the next statement, is folded into it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from torchsmith.reduce.passes.base import Candidate, Context, tidy
from torchsmith.reduce.source import (
    Substitute,
    assigned_names,
    has_effects,
    loads,
    unparse,
)


def _split_return(body: list[ast.stmt]) -> tuple[list[ast.stmt], ast.Return | None]:
    if body and isinstance(body[-1], ast.Return):
        return body[:-1], body[-1]
    return body, None


def drop_outputs(ctx: Context) -> Iterator[Candidate]:
    fwd = ctx.view().forward
    if fwd is None:
        return
    _, ret = _split_return(fwd.body)
    if ret is None or not isinstance(ret.value, ast.Tuple | ast.List) or len(ret.value.elts) < 2:
        return
    n = len(ret.value.elts)
    keeps = [[i] for i in range(n)]
    if n > 2:
        keeps += [[j for j in range(n) if j != i] for i in range(n)]
    for keep in keeps:
        v = ctx.view()
        fwd = v.forward
        assert fwd is not None
        r = fwd.body[-1]
        assert isinstance(r, ast.Return) and isinstance(r.value, ast.Tuple | ast.List)
        elts = [r.value.elts[i] for i in keep]
        r.value = elts[0] if len(elts) == 1 else ast.Tuple(elts=elts, ctx=ast.Load())
        tidy(v)
        label = (
            f"keep output {keep[0]}"
            if len(keep) == 1
            else f"drop output {set(range(n)) - set(keep)}"
        )
        yield label, unparse(v.tree)


def return_value(ctx: Context) -> Iterator[Candidate]:
    fwd = ctx.view().forward
    if fwd is None:
        return
    stmts, ret = _split_return(fwd.body)
    returned = ret.value.id if ret is not None and isinstance(ret.value, ast.Name) else None
    for i, stmt in enumerate(stmts):
        for name in assigned_names(stmt):
            if name == returned:
                continue
            v = ctx.view()
            f = v.forward
            assert f is not None
            f.body = f.body[: i + 1] + [ast.Return(value=ast.Name(id=name, ctx=ast.Load()))]
            tidy(v)
            yield f"return {name}", unparse(v.tree)


def chunks(n: int) -> Iterator[tuple[int, int]]:
    """Runs ``[start, stop)`` over ``n`` items: the whole, then halves, quarters, ..., singles."""
    seen: set[tuple[int, int]] = set()
    size = n
    while size >= 1:
        for start in range(0, n, size):
            run = (start, min(n, start + size))
            if run not in seen:
                seen.add(run)
                yield run
        if size == 1:
            break
        size = max(1, size // 2)


def drop_statements(ctx: Context) -> Iterator[Candidate]:
    fwd = ctx.view().forward
    if fwd is None:
        return
    stmts, _ = _split_return(fwd.body)
    for start, stop in chunks(len(stmts)):
        v = ctx.view()
        f = v.forward
        assert f is not None
        f.body = f.body[:start] + f.body[stop:]
        tidy(v)
        yield f"drop statements {start}..{stop - 1}", unparse(v.tree)


def _uses(node: ast.AST, name: str) -> int:
    return sum(
        1
        for n in ast.walk(node)
        if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
    )


def fold(ctx: Context) -> Iterator[Candidate]:
    """Fold a single-use value into the statement right after it, last statements first."""
    fwd = ctx.view().forward
    if fwd is None:
        return
    body = fwd.body
    for i in reversed(range(len(body) - 1)):
        names = assigned_names(body[i])
        if len(names) != 1 or has_effects(body[i]) or not isinstance(body[i], ast.Assign):
            continue
        name = names[0]
        nxt = body[i + 1]
        if isinstance(nxt, ast.If | ast.For | ast.While | ast.With | ast.Try):
            continue
        if _uses(nxt, name) != 1 or any(_uses(s, name) for s in body[i + 2 :]):
            continue
        if name in loads(body[i].value):
            continue
        v = ctx.view()
        f = v.forward
        assert f is not None
        value = f.body[i].value  # type: ignore[attr-defined]
        f.body[i + 1] = Substitute({name: value}).visit(f.body[i + 1])
        del f.body[i]
        yield f"fold {name}", unparse(v.tree)
