"""Clean-up passes: what nothing uses any more goes.

Unused forward inputs (with their entries in the inputs list), layers and parameters no code reads
(``self.fc3 = nn.Linear(...)``), helper functions, classes, imports and globals nothing refers to,
dead statements of ``get_inputs``, docstrings, an ``__init__`` that only calls
``super().__init__()`` and a ``get_init_inputs`` that returns nothing. These edits change no
computation the outputs depend on, but they can change the RNG stream (a dropped layer no longer
draws its initial weights), so each is tested like any other candidate: all at once first, then
one by one.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator

from torchsmith.reduce.passes.base import Candidate, Context, drop_params, unused_params
from torchsmith.reduce.source import View, body_of, dce, loads, self_attr_loads, unparse

Edit = Callable[[View], bool]  # edits a fresh view in place; False when it has nothing to do

ENTRY_POINTS = {"get_inputs", "get_init_inputs", "inputs"}


def _unused_inputs(v: View) -> bool:
    return drop_params(v, unused_params(v), simple_only=False)


def _member_assignments(v: View) -> list[tuple[list[ast.stmt], ast.stmt, str]]:
    """``self.x = ...`` statements in the ``__init__`` of every class: (body, stmt, attr)."""
    found = []
    for cls in [n for n in v.tree.body if isinstance(n, ast.ClassDef)]:
        init = v.method("__init__", cls)
        if init is None:
            continue
        for stmt in init.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                t = stmt.targets[0]
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name):
                    if t.value.id == "self":
                        found.append((init.body, stmt, t.attr))
    return found


def _unused_members(v: View, only: str | None = None) -> bool:
    read = self_attr_loads(v.tree)
    changed = False
    for body, stmt, attr in _member_assignments(v):
        if attr not in read and (only is None or attr == only):
            body.remove(stmt)
            changed = True
    return changed


def _defined(node: ast.stmt) -> set[str]:
    if isinstance(node, ast.FunctionDef | ast.ClassDef):
        return {node.name}
    if isinstance(node, ast.Import | ast.ImportFrom):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    return set()


def unused_globals(v: View, only: str | None = None) -> bool:
    """Drop top-level definitions nothing else reads, repeatedly (a helper's imports follow it)."""
    keep = ENTRY_POINTS | {v.model_name}
    changed = False
    while True:
        dropped = False
        for node in list(v.tree.body):
            names = _defined(node)
            if not names or names & keep or (only is not None and only not in names):
                continue
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                continue
            others = [n for n in v.tree.body if n is not node]
            used = set().union(*(loads(n) for n in others)) if others else set()
            if not names & used:
                v.tree.body.remove(node)
                dropped = changed = True
        if not dropped or only is not None:
            return changed


def _dead_input_code(v: View) -> bool:
    fn = v.get_inputs
    if fn is None:
        return False
    before = len(fn.body)
    fn.body = dce(fn.body) or [ast.Pass()]
    return len(fn.body) < before


def _is_docstring(s: ast.stmt) -> bool:
    return isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)


def _trivia(v: View) -> bool:
    """Docstrings, an ``__init__`` that only calls ``super().__init__()``, an empty
    ``get_init_inputs``."""
    changed = False
    for node in ast.walk(v.tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef) and len(node.body) > 1:
            if _is_docstring(node.body[0]):
                node.body = node.body[1:]
                changed = True
    init = v.init
    model = v.model
    if init is not None and model is not None and len(body_of(init)) == 1:
        only = ast.unparse(body_of(init)[0])
        if only == "super().__init__()" and len(init.args.args) == 1:
            model.body.remove(init)
            if not model.body:
                model.body = [ast.Pass()]
            changed = True
    gii = v.function("get_init_inputs")
    if gii is not None and len(gii.body) == 1 and isinstance(gii.body[0], ast.Return):
        val = gii.body[0].value
        if isinstance(val, ast.List | ast.Tuple | ast.Dict) and not (
            val.keys if isinstance(val, ast.Dict) else val.elts
        ):
            v.tree.body.remove(gii)
            changed = True
    return changed


EDITS: list[tuple[str, Edit]] = [
    ("unused inputs", _unused_inputs),
    ("unused layers and parameters", _unused_members),
    ("unused helpers and imports", unused_globals),
    ("dead code in get_inputs", _dead_input_code),
    ("docstrings and empty defaults", _trivia),
]


def _all(v: View) -> bool:
    changed = False
    for _ in range(3):  # each edit can free more for the others
        step = False
        for _, edit in EDITS:
            step = edit(v) or step
        changed = changed or step
        if not step:
            break
    return changed


def cleanup(ctx: Context) -> Iterator[Candidate]:
    v = ctx.view()
    if _all(v):
        yield "all clean-ups", unparse(v.tree)
    for label, edit in EDITS:
        v = ctx.view()
        if edit(v):
            yield label, unparse(v.tree)
    # One by one, for when a single drop changes what the failure needs (RNG, init order).
    v0 = ctx.view()
    read = self_attr_loads(v0.tree)
    for _, _, attr in _member_assignments(v0):
        if attr not in read:
            v = ctx.view()
            if _unused_members(v, only=attr):
                yield f"drop self.{attr}", unparse(v.tree)
    for node in v0.tree.body:
        for name in sorted(_defined(node)):
            v = ctx.view()
            if unused_globals(v, only=name):
                yield f"drop {name}", unparse(v.tree)
