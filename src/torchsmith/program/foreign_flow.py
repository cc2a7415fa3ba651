"""Straight-line code from a function repro script (for :mod:`torchsmith.program.foreign_fn`).

A function script calls what it compiles from module level, from local helpers
(``test("cpu")``, ``out = run("inductor")``) and from loops over literals
(``for s in (0.5, 1.0): ...``, ``for name, op in cases.items(): ...``). :class:`Expander`
turns that into one flat list of module-level statements in execution order, from the AST
alone:

* ``if __name__ == "__main__":``, ``try:`` and ``with`` bodies count as module level (a
  ``with torch._inductor.config.patch(...)`` header is read as config entries);
* a module-level ``if`` whose test is a constant expression keeps its taken branch;
* a loop around a compile or a compiled call is unrolled when its iterable is a literal
  tuple/list, a dict literal's ``.items()``/``.keys()``/``.values()`` (directly or through a
  module-level name) or ``range(n)`` with ``n <= 16``; a loop variable the body never rebinds
  is substituted by its element, otherwise bound by an assignment per iteration;
* a call of a local helper that compiles or calls compiled code, as a bare statement or the
  value of ``name = helper(...)``, is inlined: constant arguments substituted, others bound
  by assignments, constant ``if``/``x if c else y`` folded, the final ``return`` kept as the
  assignment.

What cannot be made straight raises :class:`~torchsmith.program.format.ProgramFormatError`
with one sentence naming the construct. Nothing is executed.
"""

from __future__ import annotations

import ast
import copy
from typing import Any

from torchsmith.program import foreign_ast as fa
from torchsmith.program.format import ProgramFormatError, dotted_name

_QUIET_WITH = {"torch.no_grad", "torch.inference_mode", "torch.enable_grad"}
_MAX_UNROLL = 16
_MAX_DEPTH = 6
_FOLDABLE = (
    ast.Expression, ast.Compare, ast.Constant, ast.BoolOp, ast.UnaryOp, ast.Tuple, ast.List,
    ast.Load, ast.cmpop, ast.boolop, ast.unaryop,
)  # fmt: skip


def constant_test(test: ast.expr) -> bool | None:
    """The truth of a test made of constants only (``"eager" == "eager"``), else None."""
    if not all(isinstance(n, _FOLDABLE) for n in ast.walk(test)):
        return None
    try:
        expr = ast.fix_missing_locations(ast.Expression(copy.deepcopy(test)))
        return bool(eval(compile(expr, "<test>", "eval"), {"__builtins__": {}}))  # noqa: S307
    except Exception:
        return None


class _Fold(ast.NodeTransformer):
    """``a if <constant test> else b`` -> the taken side."""

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        taken = constant_test(node.test)
        if taken is None:
            return node
        return node.body if taken else node.orelse


def fold(node: ast.AST) -> Any:
    return _Fold().visit(node)


class Expander:
    """Flattens a script's module level into straight-line statements (see the module doc).

    ``compiled`` are the names bound to compiled callables anywhere (``cf = torch.compile(f)``,
    ``@torch.compile def g``); ``notes`` collects what was unrolled, inlined or dropped;
    ``patches`` the ``config.patch(...)`` headers of ``with`` blocks, as ``(dotted, kwargs)``.
    """

    def __init__(self, tree: ast.Module, where: str) -> None:
        self.where = where
        self.notes: list[str] = []
        self.patches: list[tuple[str, ast.Call]] = []
        top = [s for s in tree.body if isinstance(s, ast.FunctionDef)]
        self.funcs = {s.name: s for s in top}
        self.dicts = {
            t.id: s.value
            for s in tree.body
            if isinstance(s, ast.Assign) and isinstance(s.value, ast.Dict)
            for t in s.targets
            if isinstance(t, ast.Name)
        }
        self.compiled: set[str] = set()
        self._hoisted = 0
        for n in ast.walk(tree):
            if isinstance(n, ast.FunctionDef) and any(fa.is_compile(d) for d in n.decorator_list):
                self.compiled.add(n.name)
            if isinstance(n, ast.Assign) and fa.unwrap_compile(n.value) is not None:
                self.compiled |= {t.id for t in n.targets if isinstance(t, ast.Name)}
        # Helpers worth inlining: they compile or call compiled code, directly or through another.
        self.helpers: set[str] = set()
        changed = True
        while changed:
            changed = False
            for name, f in self.funcs.items():
                if name in self.helpers or name in self.compiled:
                    continue
                if self.involves(f, skip_defs=False):
                    self.helpers.add(name)
                    changed = True

    def fail(self, msg: str, node: ast.AST | None = None) -> ProgramFormatError:
        return fa.error(self.where, msg, node)

    def involves(self, node: ast.AST, skip_defs: bool = True) -> bool:
        """Whether ``node`` compiles, or reads a compiled name or a helper."""
        for n in ast.walk(node):
            if skip_defs and n is not node and isinstance(n, fa.DEFS):
                continue
            if isinstance(n, ast.Call) and fa.is_compile(n):
                return True
            if isinstance(n, ast.Call) and dotted_name(n.func) in self.compiled | self.helpers:
                return True
        return False

    # -- the walk ------------------------------------------------------------------------------
    def expand(self, body: list[ast.stmt], depth: int = 0) -> list[ast.stmt]:
        if depth > _MAX_DEPTH:
            raise self.fail("helpers or loops nested too deep to inline", body[0] if body else None)
        out: list[ast.stmt] = []
        for node in body:
            if fa.is_main_guard(node):
                out += self.expand(node.body, depth)
            elif isinstance(node, (ast.Try, getattr(ast, "TryStar", ast.Try))):
                out += self.expand(node.body + node.orelse, depth)
            elif isinstance(node, ast.With):
                self._with_header(node)
                out += self.expand(node.body, depth)
            elif isinstance(node, ast.If) and (taken := constant_test(node.test)) is not None:
                out += self.expand(node.body if taken else node.orelse, depth)
            elif isinstance(node, ast.For) and self.involves(node):
                out += self._unroll(node, depth)
            elif (inlined := self._inline(node, depth)) is not None:
                out += inlined
            elif (hoisted := self._hoist(node)) is not None:
                out += self.expand(hoisted, depth + 1)
            else:
                if isinstance(node, ast.If | ast.While) and self.involves(node):
                    raise self.fail(
                        f"the compiled call sits in `{fa.short(node.test)}`, a branch or loop"
                        " whose condition is not a constant",
                        node,
                    )
                out.append(fold(node))
        return out

    def _with_header(self, node: ast.With) -> None:
        for item in node.items:
            expr = item.context_expr
            name = dotted_name(getattr(expr, "func", expr))
            if name in _QUIET_WITH:
                continue
            if name.endswith("config.patch") and isinstance(expr, ast.Call):
                self.patches.append((name[: -len(".patch")], expr))
                continue
            self.notes.append(f"dropped: with {ast.unparse(item)}:")

    # -- loops ---------------------------------------------------------------------------------
    def _elements(self, it: ast.expr) -> list[ast.expr] | None:
        if isinstance(it, ast.Tuple | ast.List):
            return list(it.elts) if not any(isinstance(e, ast.Starred) for e in it.elts) else None
        if isinstance(it, ast.Name) and it.id in self.dicts:
            return [k for k in self.dicts[it.id].keys if k is not None]
        if isinstance(it, ast.Dict):
            return [k for k in it.keys if k is not None]
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and not it.args:
            d = it.func.value
            d = self.dicts.get(d.id) if isinstance(d, ast.Name) else d
            if isinstance(d, ast.Dict) and None not in d.keys:
                keys, values = list(d.keys), list(d.values)
                if it.func.attr == "items":
                    return [ast.Tuple([k, v], ast.Load()) for k, v in zip(keys, values)]  # type: ignore[list-item]
                if it.func.attr in ("keys", "values"):
                    return keys if it.func.attr == "keys" else values  # type: ignore[return-value]
        if isinstance(it, ast.Call) and dotted_name(it.func) == "range" and not it.keywords:
            try:
                bounds = [ast.literal_eval(a) for a in it.args]
                values = list(range(*bounds))
            except (ValueError, TypeError, SyntaxError):
                return None
            return [ast.Constant(v) for v in values] if len(values) <= _MAX_UNROLL else None
        return None

    def _unroll(self, node: ast.For, depth: int) -> list[ast.stmt]:
        elements = self._elements(node.iter)
        if elements is None or len(elements) > _MAX_UNROLL:
            raise self.fail(
                f"the compiled call sits in a loop over `{fa.short(node.iter)}`, which is not a"
                " literal (tuple, list, dict or small range) the importer can unroll",
                node,
            )
        if node.orelse or any(isinstance(n, ast.Break | ast.Continue) for n in ast.walk(node)):
            raise self.fail("the compiled call sits in a loop with `break`/`continue`/`else`", node)
        self.notes.append(
            f"unrolled: for {ast.unparse(node.target)} in ... ({len(elements)} times)"
        )
        stored = set().union(*(fa.stores(s) for s in node.body)) if node.body else set()
        out: list[ast.stmt] = []
        for e in elements:
            body = copy.deepcopy(node.body)
            out += self._bind(node.target, e, stored, body, node)
            out += self.expand(body, depth + 1)
        return out

    def _bind(
        self, target: ast.expr, value: ast.expr, stored: set[str], body: list[ast.stmt], at: ast.AST
    ) -> list[ast.stmt]:
        """Bind a loop target to ``value``: substituted into ``body`` (in place) where that is
        exact (a simple value, a name the body never rebinds), else assignments."""
        pairs: list[tuple[ast.expr, ast.expr]] = [(target, value)]
        if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
            if len(target.elts) == len(value.elts):
                pairs = list(zip(target.elts, value.elts))
        subst: dict[str, ast.expr] = {}
        out: list[ast.stmt] = []
        for t, v in pairs:
            if isinstance(t, ast.Name) and t.id not in stored and _simple(v):
                subst[t.id] = v
            else:
                out.append(ast.copy_location(ast.Assign([copy.deepcopy(t)], copy.deepcopy(v)), at))
        if subst:
            body[:] = [fa.Substitute(subst).visit(s) for s in body]
        return [ast.fix_missing_locations(s) for s in out]

    # -- helpers -------------------------------------------------------------------------------
    def _inline(self, node: ast.stmt, depth: int) -> list[ast.stmt] | None:
        """The statements of a helper call ``node`` (bare or ``name = helper(...)``), or None."""
        target: ast.expr | None = None
        if isinstance(node, ast.Expr):
            call = node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            call, target = node.value, node.targets[0]
        else:
            return None
        if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
            return None
        fn = self.funcs.get(call.func.id)
        if fn is None or fn.name not in self.helpers:
            return None
        bound = fa.bind_args(fn, call)
        if bound is None:
            raise self.fail(f"cannot bind the arguments of helper call `{fa.short(call)}`", call)
        self.notes.append(f"inlined: {ast.unparse(call)}")
        body = [s for s in copy.deepcopy(fn.body) if not isinstance(s, ast.Global | ast.Nonlocal)]
        stored = set().union(*(fa.stores(s) for s in body)) if body else set()
        out: list[ast.stmt] = []
        subst: dict[str, ast.expr] = {}
        for p, e in bound.items():
            if p not in stored and _simple(e):
                subst[p] = e
            else:
                out.append(fa.assign(p, copy.deepcopy(e), call))
        body = [fold(fa.Substitute(subst).visit(s)) for s in body]
        body = self._straighten(body, call)
        if body and isinstance(body[-1], ast.Return):
            ret = body.pop()
            value = ret.value or ast.Constant(None)
            if target is not None:
                body.append(ast.copy_location(ast.Assign([target], value), node))
            else:
                body.append(ast.copy_location(ast.Expr(value), node))
        elif target is not None:
            body.append(ast.copy_location(ast.Assign([target], ast.Constant(None)), node))
        return [ast.fix_missing_locations(s) for s in out + self.expand(body, depth + 1)]

    def _hoist(self, node: ast.stmt) -> list[ast.stmt] | None:
        """``run("x").sum().backward()`` -> ``_helper0 = run("x")`` then
        ``_helper0.sum().backward()``: a helper call nested in a statement is taken out."""
        if not isinstance(node, ast.Expr | ast.Assign | ast.AugAssign | ast.AnnAssign):
            return None
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
                if n.func.id in self.helpers and n is not getattr(node, "value", None):
                    name = f"_helper{self._hoisted}"
                    self._hoisted += 1
                    first = fa.assign(name, copy.deepcopy(n), node)
                    rest = _Replace(n, ast.Name(name, ast.Load())).visit(copy.deepcopy(node))
                    return [first, ast.fix_missing_locations(rest)]
        return None

    def _straighten(self, body: list[ast.stmt], call: ast.Call) -> list[ast.stmt]:
        """Fold constant ``if``s; stop at the first top-level return; a nested one fails."""
        out: list[ast.stmt] = []
        for s in body:
            if isinstance(s, ast.If) and (taken := constant_test(s.test)) is not None:
                inner = self._straighten(s.body if taken else s.orelse, call)
                out += inner
                if inner and isinstance(inner[-1], ast.Return):
                    return out
                continue
            if isinstance(s, ast.Return):
                out.append(s)
                return out
            if any(isinstance(n, ast.Return) for n in ast.walk(s)) and not isinstance(s, fa.DEFS):
                raise self.fail(
                    f"helper `{fa.short(call.func)}` returns from inside a block, which the"
                    " importer cannot inline",
                    call,
                )
            out.append(s)
        return out


class _Replace(ast.NodeTransformer):
    """Replaces the node equal (by dump) to ``old``, once, by ``new``."""

    def __init__(self, old: ast.AST, new: ast.expr) -> None:
        self.old, self.new, self.done = ast.dump(old), new, False

    def visit_Call(self, node: ast.Call) -> ast.AST:
        if not self.done and ast.dump(node) == self.old:
            self.done = True
            return self.new
        return self.generic_visit(node)


def _simple(e: ast.expr) -> bool:
    """Values that may be substituted for a name without changing what runs: constants,
    names, attribute chains (``torch.float32``), lambdas, and tuples of those."""
    if isinstance(e, ast.Constant | ast.Name | ast.Lambda):
        return True
    if isinstance(e, ast.Attribute):
        return bool(dotted_name(e))
    if isinstance(e, ast.UnaryOp) and isinstance(e.operand, ast.Constant):
        return True
    if isinstance(e, ast.Tuple):
        return all(_simple(x) for x in e.elts)
    return False
