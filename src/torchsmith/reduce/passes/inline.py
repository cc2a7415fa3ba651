"""Inlining: helper functions, ``self.method(...)`` calls and local submodules into ``Model``.

The forward passes only see ``Model.forward``; a program whose work happens in ``Block.forward``
or in ``def helper(x)`` must first be flattened. A callee is inlined when its body is straight
line code ending in one ``return``: its locals get a prefix, parameters bound to a plain name are
renamed to it (no extra statement), others get one binding statement, and the call is replaced by
the returned expression. A submodule's ``__init__`` moves into ``Model.__init__`` at the same place
(``self.block.fc`` becomes ``self.block_fc``, created in the same order, so initial weights are
drawn identically), and its class goes once nothing else refers to it.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Iterator

from torchsmith.reduce.passes.base import Candidate, Context
from torchsmith.reduce.source import (
    Renamer,
    Substitute,
    Swap,
    View,
    body_of,
    loads,
    stores,
    unparse,
)


class _Reject(Exception):
    """The callee or the call site has a shape this pass does not handle."""


def _bind(fn: ast.FunctionDef, call: ast.Call, skip_self: bool) -> dict[str, ast.expr]:
    a = fn.args
    if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
        raise _Reject
    params = [p.arg for p in a.args[1 if skip_self else 0 :]]
    if any(isinstance(x, ast.Starred) for x in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        raise _Reject
    if len(call.args) > len(params):
        raise _Reject
    bound: dict[str, ast.expr] = dict(zip(params, call.args))
    for k in call.keywords:
        if k.arg not in params or k.arg in bound:
            raise _Reject
        bound[k.arg] = k.value
    defaults = dict(zip(params[len(params) - len(a.defaults) :], a.defaults))
    for p in params:
        if p not in bound:
            if p not in defaults:
                raise _Reject
            bound[p] = defaults[p]
    return bound


class _SelfAttrs(ast.NodeTransformer):
    """``self.x`` -> ``self.<prefix>_x``; any other use of ``self`` is rejected."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            return ast.copy_location(
                ast.Attribute(value=node.value, attr=f"{self.prefix}_{node.attr}", ctx=node.ctx),
                node,
            )
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id == "self":
            raise _Reject
        return node


def _expand(
    fn: ast.FunctionDef,
    call: ast.Call,
    *,
    skip_self: bool,
    prefix: str,
    taken: set[str],
    self_prefix: str | None,
    needs_return: bool = True,
) -> tuple[list[ast.stmt], ast.expr | None]:
    """The statements that replace ``call`` and the expression for its value."""
    body = [copy.deepcopy(s) for s in body_of(fn)]
    ret: ast.expr | None = None
    if needs_return:
        if not body or not isinstance(body[-1], ast.Return) or body[-1].value is None:
            raise _Reject
        ret = body.pop().value
    for s in body:
        for n in ast.walk(s):
            if isinstance(n, ast.Return | ast.Yield | ast.YieldFrom | ast.Global | ast.Nonlocal):
                raise _Reject
            if isinstance(n, ast.FunctionDef | ast.ClassDef | ast.Lambda):
                raise _Reject
    bound = _bind(fn, call, skip_self)
    local = set().union(*(stores(s) for s in body)) if body else set()
    mapping: dict[str, str] = {}
    for name in sorted(local | set(bound)):
        new = f"{prefix}_{name}"
        while new in taken:
            new += "_"
        mapping[name] = new
    bindings: list[ast.stmt] = []
    constants: dict[str, ast.expr] = {}
    for p, arg in bound.items():
        if p not in local and isinstance(arg, ast.Name):
            mapping[p] = arg.id
        elif p not in local and isinstance(arg, ast.Constant):
            mapping.pop(p)
            constants[p] = arg
        else:
            bindings.append(
                ast.Assign(targets=[ast.Name(id=mapping[p], ctx=ast.Store())], value=arg)
            )
    renamer = Renamer(mapping)
    const = Substitute(constants)
    out = bindings + [renamer.visit(const.visit(s)) for s in body]
    if ret is not None:
        ret = renamer.visit(const.visit(ret))
    if self_prefix is not None:
        fixer = _SelfAttrs(self_prefix)
        out = [fixer.visit(s) for s in out]
        ret = fixer.visit(ret) if ret is not None else None
    taken |= set(mapping.values())
    return out, ret


def _all_names(tree: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)
    }


def _inline_sites(v: View, method: ast.FunctionDef, is_target: Callable, expand: Callable) -> int:
    """Replace every call ``is_target(call)`` in a simple top-level statement of ``method`` by
    its expansion, innermost first; returns how many were replaced (raises on one it cannot)."""
    count = 0
    new_body: list[ast.stmt] = []
    for stmt in method.body:
        for _ in range(32):
            calls = [n for n in ast.walk(stmt) if isinstance(n, ast.Call) and is_target(n)]
            if not calls:
                break
            if not isinstance(stmt, ast.Assign | ast.Expr | ast.Return | ast.AnnAssign):
                raise _Reject
            # innermost: a target call with no target call among its arguments
            call = next(
                c for c in calls if not any(d is not c for d in _inner_targets(c, is_target))
            )
            stmts, value = expand(call)
            new_body += stmts
            stmt = Swap(call, value if value is not None else ast.Constant(None)).visit(stmt)
            count += 1
        new_body.append(stmt)
    method.body = new_body
    return count


def _inner_targets(call: ast.Call, is_target: Callable) -> list[ast.Call]:
    return [n for n in ast.walk(call) if isinstance(n, ast.Call) and is_target(n)]


def _model_methods(v: View) -> list[ast.FunctionDef]:
    model = v.model
    return [n for n in model.body if isinstance(n, ast.FunctionDef)] if model else []


def inline_function(v: View, name: str) -> bool:
    """Inline calls of the top-level function ``name`` into the methods of Model."""
    fn = v.function(name)
    if fn is None:
        return False
    taken = _all_names(v.tree)

    def is_target(c: ast.Call) -> bool:
        return isinstance(c.func, ast.Name) and c.func.id == name

    def expand(c: ast.Call) -> tuple[list[ast.stmt], ast.expr | None]:
        return _expand(fn, c, skip_self=False, prefix=name, taken=taken, self_prefix=None)

    done = sum(_inline_sites(v, m, is_target, expand) for m in _model_methods(v))
    if not done:
        return False
    _drop_if_unused(v, fn)
    return True


def inline_method(v: View, name: str) -> bool:
    """Inline ``self.name(...)`` calls of a Model method into the other Model methods."""
    meth = v.method(name)
    if meth is None or name in ("forward", "__init__"):
        return False
    taken = _all_names(v.tree)

    def is_target(c: ast.Call) -> bool:
        f = c.func
        return isinstance(f, ast.Attribute) and f.attr == name and _is_self(f.value)

    def expand(c: ast.Call) -> tuple[list[ast.stmt], ast.expr | None]:
        return _expand(meth, c, skip_self=True, prefix=name, taken=taken, self_prefix=None)

    done = sum(_inline_sites(v, m, is_target, expand) for m in _model_methods(v) if m is not meth)
    if not done:
        return False
    model = v.model
    assert model is not None
    if name not in {n.attr for n in ast.walk(model) if isinstance(n, ast.Attribute)}:
        model.body.remove(meth)
    return True


def _is_self(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _submodule_inits(v: View) -> list[tuple[ast.Assign, str, str]]:
    """``self.attr = LocalClass(...)`` in Model.__init__: (statement, attr, class name)."""
    init = v.init
    classes = {n.name for n in v.tree.body if isinstance(n, ast.ClassDef)} - {v.model_name}
    out = []
    for stmt in init.body if init else []:
        if (
            isinstance(stmt, ast.Assign)
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0], ast.Attribute)
            and _is_self(stmt.targets[0].value)
            and isinstance(stmt.value, ast.Call)
            and isinstance(stmt.value.func, ast.Name)
            and stmt.value.func.id in classes
        ):
            out.append((stmt, stmt.targets[0].attr, stmt.value.func.id))
    return out


def inline_submodule(v: View, attr: str) -> bool:
    init = v.init
    found = [(s, a, c) for s, a, c in _submodule_inits(v) if a == attr]
    if init is None or len(found) != 1:
        return False
    stmt, _, cname = found[0]
    cls = v.cls(cname)
    assert cls is not None and isinstance(stmt.value, ast.Call)
    if any(not isinstance(n, ast.FunctionDef) for n in cls.body if not _docstring(n)):
        raise _Reject  # class attributes
    methods = {n.name: n for n in cls.body if isinstance(n, ast.FunctionDef)}
    fwd = methods.get("forward")
    if fwd is None or set(methods) - {"forward", "__init__"}:
        raise _Reject
    taken = _all_names(v.tree)
    # __init__: the submodule's members become Model members, created at the same point.
    new_init: list[ast.stmt] = []
    if "__init__" in methods:
        sub_init = copy.deepcopy(methods["__init__"])
        sub_init.body = [s for s in body_of(sub_init) if not _is_super_init(s)]
        stmts, _ = _expand(
            sub_init,
            stmt.value,
            skip_self=True,
            prefix=attr,
            taken=taken,
            self_prefix=attr,
            needs_return=False,
        )
        new_init = stmts
    i = init.body.index(stmt)
    init.body[i : i + 1] = new_init

    # Every use of self.attr must be a call in a Model method.
    def is_target(c: ast.Call) -> bool:
        f = c.func
        return isinstance(f, ast.Attribute) and f.attr == attr and _is_self(f.value)

    def expand(c: ast.Call) -> tuple[list[ast.stmt], ast.expr | None]:
        return _expand(fwd, c, skip_self=True, prefix=attr, taken=taken, self_prefix=attr)

    for m in _model_methods(v):
        _inline_sites(v, m, is_target, expand)
    model = v.model
    assert model is not None
    if attr in {n.attr for n in ast.walk(model) if isinstance(n, ast.Attribute)}:
        raise _Reject  # used otherwise than called (self.block.weight, passed along)
    _drop_if_unused(v, cls)
    return True


def _docstring(n: ast.stmt) -> bool:
    return isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)


def _is_super_init(s: ast.stmt) -> bool:
    if not isinstance(s, ast.Expr) or not isinstance(s.value, ast.Call):
        return False
    f = s.value.func
    return isinstance(f, ast.Attribute) and f.attr == "__init__"


def _drop_if_unused(v: View, node: ast.FunctionDef | ast.ClassDef) -> None:
    others = [n for n in v.tree.body if n is not node]
    if node.name not in set().union(*(loads(n) for n in others)):
        v.tree.body.remove(node)


def inline_calls(ctx: Context) -> Iterator[Candidate]:
    v0 = ctx.view()
    model = v0.model
    if model is None:
        return
    called = {
        n.func.id
        for n in ast.walk(model)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)
    }
    jobs: list[tuple[str, object, str]] = []
    for _s, attr, cname in _submodule_inits(v0):
        jobs.append((f"inline submodule self.{attr} ({cname})", inline_submodule, attr))
    for m in _model_methods(v0):
        if m.name not in ("forward", "__init__") and not m.name.startswith("__"):
            jobs.append((f"inline method {m.name}", inline_method, m.name))
    for node in v0.tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in called:
            if node.name not in ("get_inputs", "get_init_inputs"):
                jobs.append((f"inline function {node.name}", inline_function, node.name))
    for label, fn, name in jobs:
        v = ctx.view()
        try:
            ok = fn(v, name)  # type: ignore[operator]
        except _Reject:
            continue
        if ok:
            yield label, unparse(v.tree)
