"""AST helpers for :mod:`torchsmith.program.foreign`: name analysis and source rewrites.

Nothing here executes code. Name analysis is deliberately approximate in the safe direction:
it may report a name as used when it is not (the importer then keeps one statement too many),
but it tracks Python's scoping well enough that a ``forward(self, x)`` parameter does not drag
a module-level ``x = ...`` into the output.
"""

from __future__ import annotations

import ast
import builtins
import copy
import re

from torchsmith.program.format import ProgramFormatError, dotted_name

BUILTINS = frozenset(dir(builtins))
DEFS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_FUNCS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_ACCELERATOR = re.compile(r"^(cuda|xpu|mps)(:\d+)?$")


def import_names(node: ast.Import | ast.ImportFrom) -> set[str]:
    return {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}


def _loads_stores(nodes: list[ast.AST]) -> tuple[set[str], set[str]]:
    """Names read and bound by ``nodes`` in their own scope; nested scopes add their free names."""
    loads: set[str] = set()
    stores: set[str] = set()
    todo = list(nodes)
    while todo:
        n = todo.pop()
        if isinstance(n, DEFS + _FUNCS + _COMPS):
            loads |= free_names(n)
            if isinstance(n, DEFS):
                stores.add(n.name)
            continue
        if isinstance(n, ast.Name):
            (loads if isinstance(n.ctx, ast.Load) else stores).add(n.id)
        elif isinstance(n, ast.Import | ast.ImportFrom):
            stores |= import_names(n)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            stores.add(n.name)
        todo.extend(ast.iter_child_nodes(n))
    return loads, stores


def free_names(node: ast.AST) -> set[str]:
    """Names a function, class, lambda or comprehension reads from its enclosing scopes."""
    if isinstance(node, _FUNCS):
        a = node.args
        outer = [*getattr(node, "decorator_list", []), *a.defaults]
        outer += [d for d in a.kw_defaults if d is not None]
        params = {p.arg for p in [*a.posonlyargs, *a.args, *a.kwonlyargs, a.vararg, a.kwarg] if p}
        body = node.body if isinstance(node.body, list) else [node.body]
        loads, stores = _loads_stores(body)
        return _loads_stores(outer)[0] | (loads - stores - params)
    if isinstance(node, ast.ClassDef):
        outer = [*node.bases, *(k.value for k in node.keywords), *node.decorator_list]
        loads, stores = _loads_stores(node.body)
        return _loads_stores(outer)[0] | (loads - stores)
    if isinstance(node, _COMPS):
        gens = node.generators
        inner: list[ast.AST] = [g.target for g in gens] + [c for g in gens for c in g.ifs]
        inner += [g.iter for g in gens[1:]]
        inner += [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        loads, stores = _loads_stores(inner)
        return _loads_stores([gens[0].iter])[0] | (loads - stores)
    return _loads_stores([node])[0]


def uses(stmt: ast.AST) -> set[str]:
    """Module-level names a top-level statement (or expression) reads."""
    if isinstance(stmt, DEFS):
        return free_names(stmt)
    return _loads_stores([stmt])[0]


def stores(stmt: ast.stmt) -> set[str]:
    """Names a top-level statement binds at module level."""
    if isinstance(stmt, DEFS):
        return {stmt.name}
    return _loads_stores([stmt])[1]


def root_name(node: ast.AST) -> str | None:
    """``x`` for ``x.a[0].b(...)``: the variable an attribute/subscript/call chain starts from."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def mutated(stmt: ast.stmt) -> set[str]:
    """Variables a statement changes in place: ``x[0] = 1``, ``x.y = 2``, ``xs.append(t)``."""
    out: set[str] = set()
    todo: list[ast.AST] = [stmt]
    while todo:
        n = todo.pop()
        if n is not stmt and isinstance(n, DEFS + _FUNCS):
            continue
        targets: list[ast.AST] = []
        if isinstance(n, ast.Assign):
            targets = list(n.targets)
        elif isinstance(n, ast.AugAssign | ast.AnnAssign):
            targets = [n.target]
        elif isinstance(n, ast.Expr) and isinstance(n.value, ast.Call):
            if isinstance(n.value.func, ast.Attribute) and (r := root_name(n.value.func)):
                out.add(r)
        for t in targets:
            if not isinstance(t, ast.Name) and (r := root_name(t)):
                out.add(r)
        todo.extend(ast.iter_child_nodes(n))
    return out


def is_main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If):
        return False
    test = ast.unparse(node.test).replace('"', "'")
    return test in {"__name__ == '__main__'", "'__main__' == __name__"}


class Renamer(ast.NodeTransformer):
    """Renames variables, functions and classes (not attributes) by a mapping."""

    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.Name:
        node.id = self.mapping.get(node.id, node.id)
        return node

    def _rename_def(self, node: ast.AST) -> ast.AST:
        node.name = self.mapping.get(node.name, node.name)  # type: ignore[attr-defined]
        return self.generic_visit(node)

    visit_ClassDef = visit_FunctionDef = visit_AsyncFunctionDef = _rename_def


class Substitute(ast.NodeTransformer):
    """Replaces loads of names by (copies of) expressions: a helper's parameters by its arguments."""

    def __init__(self, mapping: dict[str, ast.expr]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.expr:
        if isinstance(node.ctx, ast.Load) and node.id in self.mapping:
            return copy.deepcopy(self.mapping[node.id])
        return node


#: CUDA calls that only synchronize, free or measure, and raise without a GPU: dropped for cpu.
_CUDA_ONLY = {
    "torch.cuda.synchronize",
    "torch.cuda.empty_cache",
    "torch.cuda.reset_peak_memory_stats",
    "torch.cuda.max_memory_allocated",
    "torch.cuda.memory_allocated",
    "torch.cuda.ipc_collect",
}


def _is_cpu_device(node: ast.expr) -> bool:
    """A device expression that already says cpu: ``"cpu"`` or ``torch.device("cpu")``."""
    if isinstance(node, ast.Call) and dotted_name(node.func) == "torch.device" and node.args:
        node = node.args[0]
    return isinstance(node, ast.Constant) and node.value == "cpu"


class DeviceRewriter(ast.NodeTransformer):
    """Moves a script to ``device``.

    For ``cpu``: accelerator strings (``"cuda"``, ``"cuda:0"``, ...) become ``"cpu"``, which
    covers ``device=`` keywords, ``torch.device(...)`` and device variables; ``.cuda(...)``
    calls disappear, ``torch.cuda.synchronize()`` and its kind become ``None``, and ``.to(...)`` loses its cpu device arguments (and disappears when
    nothing else is left). ``a if cond else a`` collapses to ``a``. Other devices: unchanged.
    """

    def __init__(self, device: str) -> None:
        self.active = device == "cpu"

    def visit_Constant(self, node: ast.Constant) -> ast.Constant:
        if self.active and isinstance(node.value, str) and _ACCELERATOR.match(node.value):
            return ast.copy_location(ast.Constant("cpu"), node)
        return node

    def visit_IfExp(self, node: ast.IfExp) -> ast.expr:
        self.generic_visit(node)
        if ast.dump(node.body) == ast.dump(node.orelse):
            return node.body
        return node

    def visit_Call(self, node: ast.Call) -> ast.expr:
        self.generic_visit(node)
        f = node.func
        if self.active and dotted_name(f) in _CUDA_ONLY:  # no-ops on a CPU-only run
            return ast.copy_location(ast.Constant(None), node)
        if not self.active or not isinstance(f, ast.Attribute) or dotted_name(f.value) == "torch":
            return node
        if f.attr == "cuda":
            return f.value
        if f.attr == "to":
            args = [a for a in node.args if not _is_cpu_device(a)]
            kws = [k for k in node.keywords if not (k.arg == "device" and _is_cpu_device(k.value))]
            if not args and not [k for k in kws if k.arg not in ("non_blocking", "copy")]:
                return f.value
            node.args, node.keywords = args, kws
        return node


# -- small utilities ----------------------------------------------------------------------------

_WRAPPERS = {"compile", "script"}  # torch.compile(m), torch.jit.script(m)
_WRAPPER_FACTORIES = {"optimize", "compile"}  # torch._dynamo.optimize(...)(m)


def unwrap_compile(e: ast.AST) -> ast.expr | None:
    """``m`` for ``torch.compile(m, ...)``, ``torch.jit.script(m)``, ``torch._dynamo.optimize(...)(m)``."""
    if not isinstance(e, ast.Call):
        return None
    if dotted_name(e.func).rsplit(".", 1)[-1] in _WRAPPERS and e.args:
        return e.args[0]
    f = e.func
    if isinstance(f, ast.Call) and dotted_name(f.func).rsplit(".", 1)[-1] in _WRAPPER_FACTORIES:
        return e.args[0] if len(e.args) == 1 else None
    return None


def is_compile(node: ast.AST) -> bool:
    """``torch.compile(...)``, ``torch._dynamo.optimize(...)`` and friends, called or not."""
    node = node.func if isinstance(node, ast.Call) else node
    return dotted_name(node).rsplit(".", 1)[-1] in ("compile", "optimize")


def compiles(stmt: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) and is_compile(n) for n in ast.walk(stmt))


def call_name(stmt: ast.stmt) -> str:
    """``torch.manual_seed`` for the statement ``torch.manual_seed(0)``, else ``""``."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        return dotted_name(stmt.value.func)
    return ""


def calls_in_order(node: ast.AST) -> list[ast.Call]:
    calls = [n for n in ast.walk(node) if isinstance(n, ast.Call)]
    return sorted(calls, key=lambda n: (n.lineno, n.col_offset))


def short(node: ast.AST, width: int = 60) -> str:
    text = ast.unparse(node)
    return text if len(text) <= width else text[: width - 3] + "..."


def assignments(flat: list[ast.stmt]) -> dict[str, ast.expr]:
    """Name -> value of the last plain ``name = value`` among ``flat``."""
    return {
        s.targets[0].id: s.value
        for s in flat
        if isinstance(s, ast.Assign) and isinstance(s.targets[0], ast.Name)
    }


def local_names(fn: ast.FunctionDef) -> set[str]:
    return _loads_stores(fn.body)[1]


def bind_args(fn: ast.FunctionDef, call: ast.Call) -> dict[str, ast.expr] | None:
    """Parameter name -> argument expression for ``call`` of ``fn``; None when it cannot tell."""
    a = fn.args
    params = [p.arg for p in [*a.posonlyargs, *a.args]]
    if any(isinstance(x, ast.Starred) for x in call.args):
        return None
    bound: dict[str, ast.expr] = dict(zip(params, call.args))
    extra = call.args[len(params) :]
    if a.vararg:
        bound[a.vararg.arg] = ast.Tuple(list(extra), ast.Load())
    elif extra:
        return None
    for k in call.keywords:
        if k.arg is None:
            return None
        bound[k.arg] = k.value
    defaults = [
        *zip(params[::-1], a.defaults[::-1]),
        *zip((p.arg for p in a.kwonlyargs), a.kw_defaults),
    ]
    for p, d in defaults:
        if p not in bound and d is not None:
            bound[p] = d
    return bound


def assign(name: str, value: ast.expr, at: ast.AST) -> ast.stmt:
    return ast.copy_location(ast.Assign([ast.Name(name, ast.Store())], value), at)


def is_setting(stmt: ast.stmt) -> bool:
    """Config and environment settings worth a "dropped:" note."""
    if isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign):
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        for t in targets:
            name = dotted_name(t) or dotted_name(getattr(t, "value", t))
            if "config" in name or name.startswith(("torch.", "os.environ")):
                return True
        return False
    name = call_name(stmt)
    return "config" in name or name.startswith(
        ("torch._dynamo", "torch._inductor", "torch.backends", "torch.set_", "torch.use_determ")
    )


def inject_init(cls: ast.ClassDef, stmts: list[ast.stmt]) -> ast.ClassDef:
    """A copy of ``cls`` with ``stmts`` appended to its ``__init__`` (added when missing)."""
    cls = copy.deepcopy(cls)
    for s in cls.body:
        if isinstance(s, ast.FunctionDef) and s.name == "__init__":
            s.body += stmts
            return cls
    init = ast.parse("def __init__(self, *args, **kwargs):\n    super().__init__(*args, **kwargs)")
    init.body[0].body += stmts  # type: ignore[attr-defined]
    cls.body.append(init.body[0])
    return cls


def strip_compile_decorators(node: ast.stmt) -> list[str]:
    """Remove ``@torch.compile``-style decorators from ``node`` and the defs inside it, in place;
    return them as text."""
    removed: list[str] = []
    for n in ast.walk(node):
        if isinstance(n, DEFS):
            removed += [f"@{ast.unparse(d)} on {n.name}" for d in n.decorator_list if is_compile(d)]
            n.decorator_list = [d for d in n.decorator_list if not is_compile(d)]
    return removed


def has_call(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Call) for n in ast.walk(node))


def error(where: str, msg: str, node: ast.AST | None = None) -> ProgramFormatError:
    """``file:line: msg`` (the line when ``node`` has one)."""
    line = f":{node.lineno}" if node is not None and hasattr(node, "lineno") else ""
    return ProgramFormatError(f"{where}{line}: {msg}")


def script_imports(stmts: list[ast.stmt]) -> list[ast.stmt]:
    """Every import among ``stmts``, once each, in source order (copies)."""
    out: dict[str, ast.stmt] = {}
    for s in stmts:
        if isinstance(s, ast.Import | ast.ImportFrom):
            out.setdefault(ast.unparse(s), copy.deepcopy(s))
    return list(out.values())
