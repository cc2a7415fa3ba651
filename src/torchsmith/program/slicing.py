"""Which statements an output depends on: a static backward slice, for signatures.

A wrong value in ``out[1]`` says nothing about the ops that only feed ``out[0]``; a signature
built from every op of the program splits one root cause into as many "bugs" as there are
programs around it. :func:`output_slice` keeps, from the body of the tested callable (``forward``
of the model class, or the tested function), the statements the failing output depends on:
walking back from the returned element, a statement is kept when it binds a name the output
needs (assignment, augmented assignment, loop or ``with`` target) or writes one in place
(``x.add_(...)``, ``x[i] = ...``); a compound statement (``if``, ``for``, ``while``, ``with``,
``try``) is kept whole when anything inside it is. Attributes of ``self`` it uses bring in the
``__init__`` statement that builds them (``self.fc = nn.Linear(...)``).

It is static and conservative: when the output cannot be mapped to a returned expression (no
plain ``return`` at the end, a path it does not understand) it returns None and the caller
signs with every op of the program.
"""

from __future__ import annotations

import ast
import re

_INDEX = re.compile(r"^[a-z]+\[(\d+)\]")


def _entry(tree: ast.Module, name: str) -> tuple[ast.FunctionDef | None, ast.ClassDef | None]:
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name == "forward":
                    return item, node
            return None, node
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node, None
    return None, None


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _self_attrs(node: ast.AST) -> set[str]:
    return {
        n.attr
        for n in ast.walk(node)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "self"
    }


def _writes(stmt: ast.stmt) -> set[str]:
    """Names a statement binds or writes in place."""
    out: set[str] = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out.add(node.id)
        elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
            root = node.value
            while isinstance(root, ast.Subscript | ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name):
                out.add(root.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr.endswith("_") and not node.func.attr.startswith("_"):
                root = node.func.value
                while isinstance(root, ast.Subscript | ast.Attribute):
                    root = root.value
                if isinstance(root, ast.Name):
                    out.add(root.id)
    return out


def _output_index(path: str) -> int | None:
    """``out[1]`` -> 1; ``out`` -> None (the whole return value); a call sequence's
    ``calls[0][1]`` -> 1 (every call runs the same body)."""
    rest = path
    if rest.startswith("calls["):
        rest = rest.split("]", 1)[1] if "]" in rest else ""
        rest = "out" + rest
    m = _INDEX.match(rest)
    return int(m.group(1)) if m else None


def output_slice(source: str, entry: str, path: str) -> ast.Module | None:
    """The statements of ``entry``'s body (and of ``__init__``) that output ``path`` depends
    on, as a module of two functions, or None when the output cannot be mapped."""
    if not path.startswith(("out", "calls")):
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    fn, cls = _entry(tree, entry)
    if fn is None or not fn.body or not isinstance(fn.body[-1], ast.Return):
        return None
    ret = fn.body[-1].value
    if ret is None:
        return None
    index = _output_index(path)
    expr: ast.expr = ret
    if index is not None and isinstance(ret, ast.Tuple | ast.List):
        if index >= len(ret.elts):
            return None
        expr = ret.elts[index]
    needed, attrs = _loads(expr), _self_attrs(expr)
    kept: list[ast.stmt] = []
    for stmt in reversed(fn.body[:-1]):
        if _writes(stmt) & needed:
            kept.append(stmt)
            needed |= _loads(stmt)
            attrs |= _self_attrs(stmt)
    kept.reverse()
    body = [*kept, ast.Return(expr)]
    init: list[ast.stmt] = []
    if cls is not None:
        for item in cls.body:
            if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                init = [s for s in item.body if _self_attrs(_targets(s)) & attrs]
    module = ast.parse("def forward():\n    pass\ndef __init__():\n    pass\n")
    module.body[0].body = body  # type: ignore[attr-defined]
    module.body[1].body = init or [ast.Pass()]  # type: ignore[attr-defined]
    return module


def _targets(stmt: ast.stmt) -> ast.AST:
    if isinstance(stmt, ast.Assign):
        return ast.Tuple(stmt.targets, ast.Store())
    if isinstance(stmt, ast.AnnAssign | ast.AugAssign):
        return stmt.target
    return ast.Tuple([], ast.Store())
