"""The reducer's view of a canonical program's source.

Passes never execute program code: they parse the source, edit a fresh AST and unparse it. This
module holds what they share: where ``forward``, ``__init__`` and the inputs live, which names a
statement reads and writes, which statements have effects, dead-code elimination, a flow-blind
check for names that are no longer defined, and :func:`size_key`, the order every accepted
candidate must decrease (it makes the reducer terminate).
"""

from __future__ import annotations

import ast
import builtins
import dataclasses

from torchsmith.program.format import dotted_name

#: Float dtypes that are "less simple" than float32 (the dtype pass moves them to float32).
ODD_DTYPES = {"float16", "bfloat16", "float64", "half", "double"}

_BUILTINS = set(dir(builtins)) | {"__name__", "__file__", "__builtins__"}


def parse(source: str) -> ast.Module:
    return ast.parse(source)


def unparse(tree: ast.Module) -> str:
    ast.fix_missing_locations(tree)
    return ast.unparse(tree) + "\n"


@dataclasses.dataclass
class View:
    """The parts of one parsed program that passes edit (all of them nodes of ``tree``)."""

    tree: ast.Module
    model_name: str = "Model"

    def function(self, name: str) -> ast.FunctionDef | None:
        for node in self.tree.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return node
        return None

    def cls(self, name: str) -> ast.ClassDef | None:
        for node in self.tree.body:
            if isinstance(node, ast.ClassDef) and node.name == name:
                return node
        return None

    @property
    def model(self) -> ast.ClassDef | None:
        return self.cls(self.model_name)

    def method(self, name: str, cls: ast.ClassDef | None = None) -> ast.FunctionDef | None:
        cls = cls or self.model
        if cls is None:
            return None
        for node in cls.body:
            if isinstance(node, ast.FunctionDef) and node.name == name:
                return node
        return None

    @property
    def is_function(self) -> bool:
        """The target is a module-level function (``fn``), not an nn.Module class."""
        return self.model is None and self.function(self.model_name) is not None

    @property
    def forward(self) -> ast.FunctionDef | None:
        """``Model.forward``; for a function program the function itself."""
        if self.is_function:
            return self.function(self.model_name)
        return self.method("forward")

    @property
    def init(self) -> ast.FunctionDef | None:
        return self.method("__init__")

    @property
    def get_inputs(self) -> ast.FunctionDef | None:
        return self.function("get_inputs")

    def inputs_list(self) -> ast.List | ast.Tuple | None:
        """The list literal holding the forward arguments: what ``get_inputs`` returns last, or
        a module-level ``inputs = [...]``; None when the inputs are built some other way."""
        fn = self.get_inputs
        if fn is not None:
            rets = [s for s in fn.body if isinstance(s, ast.Return)]
            if rets and isinstance(rets[-1].value, ast.List | ast.Tuple):
                return rets[-1].value
            return None
        for node in self.tree.body:
            if (
                isinstance(node, ast.Assign)
                and any(isinstance(t, ast.Name) and t.id == "inputs" for t in node.targets)
                and isinstance(node.value, ast.List | ast.Tuple)
            ):
                return node.value
        return None

    def forward_params(self) -> list[ast.arg] | None:
        """The positional parameters of forward after ``self``; None when forward has defaults,
        ``*args``, ``**kwargs`` or keyword-only parameters (then inputs are not edited)."""
        fwd = self.forward
        if fwd is None:
            return None
        a = fwd.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or a.posonlyargs:
            return None
        return a.args if self.is_function else a.args[1:]


def view(source: str, model: str = "Model") -> View:
    return View(parse(source), model)


def body_of(fn: ast.FunctionDef) -> list[ast.stmt]:
    """The statements of ``fn`` without a leading docstring."""
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        return body[1:]
    return body


def loads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def stores(node: ast.AST) -> set[str]:
    return {
        n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def assigned_names(stmt: ast.stmt) -> list[str]:
    """Names bound by a plain ``a = ...`` / ``a, b = ...`` statement, in order; else ``[]``."""
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value:
        return [stmt.target.id]
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return []
    t = stmt.targets[0]
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, ast.Tuple | ast.List) and all(isinstance(e, ast.Name) for e in t.elts):
        return [e.id for e in t.elts]  # type: ignore[attr-defined]
    return []


def _call_has_effects(call: ast.Call) -> bool:
    f = call.func
    if isinstance(f, ast.Attribute) and f.attr.endswith("_") and not f.attr.endswith("__"):
        return True  # in-place tensor method: x.add_(1)
    for k in call.keywords:
        if k.arg == "out":
            return True
        if k.arg == "inplace" and not (isinstance(k.value, ast.Constant) and not k.value.value):
            return True
    return dotted_name(f) in {"print", "torch.manual_seed", "setattr", "exec", "eval"}


def has_effects(stmt: ast.stmt) -> bool:
    """True unless ``stmt`` is a plain assignment to names whose right side mutates nothing."""
    if not isinstance(stmt, ast.Assign | ast.AnnAssign) or not assigned_names(stmt):
        return True
    assert stmt.value is not None
    for n in ast.walk(stmt.value):
        if isinstance(n, ast.Call) and _call_has_effects(n):
            return True
        if isinstance(n, ast.NamedExpr | ast.Yield | ast.YieldFrom | ast.Await):
            return True
    return False


def dce(body: list[ast.stmt]) -> list[ast.stmt]:
    """Drop plain assignments whose names are never read afterwards (statements with effects,
    control flow and the return are kept)."""
    live: set[str] = set()
    kept: list[ast.stmt] = []
    for stmt in reversed(body):
        pure = not has_effects(stmt)
        written = set(assigned_names(stmt))
        if pure and not (written & live):
            continue
        kept.append(stmt)
        if pure:
            live -= written
        live |= loads(stmt)
    kept.reverse()
    return kept


def module_names(tree: ast.Module) -> set[str]:
    """Names bound at module level: definitions, imports, assignments."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.ClassDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for a in node.names:
                names.add((a.asname or a.name).split(".")[0])
        else:
            names |= stores(node)
    return names


def undefined_names(tree: ast.Module) -> set[str]:
    """Names some function reads that nothing binds (flow-blind): a candidate that has them
    would only raise NameError, so the driver skips it without a worker job."""
    known = module_names(tree) | _BUILTINS
    missing: set[str] = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.Lambda):
            continue
        local = {a.arg for a in ast.walk(fn) if isinstance(a, ast.arg)} | stores(fn)
        for n in ast.walk(fn):
            if isinstance(n, ast.FunctionDef | ast.ClassDef):
                local.add(n.name)
        missing |= loads(fn) - local - known
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef | ast.ClassDef):
            missing |= loads(node) - known
    return missing


def forward_statements(source: str, model: str = "Model") -> int:
    """Top-level statements in ``forward`` (the figure the bench and the tests report)."""
    try:
        fwd = view(source, model).forward
    except SyntaxError:
        return -1
    return len(body_of(fwd)) if fwd is not None else 0


def size_key(source: str) -> tuple[int, int, int, int, int, int, str]:
    """The order candidates must decrease: statements, AST nodes, non-float32 float dtypes, the
    sum of integer literals, ``True`` flags, length, then the text itself. Lexicographic over
    naturals and bounded strings, so it is well-founded: the reducer cannot run forever."""
    tree = parse(source)
    stmts = nodes = odd = ints = flags = 0
    for n in ast.walk(tree):
        nodes += 1
        if isinstance(n, ast.stmt):
            stmts += 1
        elif isinstance(n, ast.Attribute) and n.attr in ODD_DTYPES:
            odd += 1
        elif isinstance(n, ast.Constant) and type(n.value) is int:
            ints += min(abs(n.value), 1 << 20)
        elif isinstance(n, ast.Constant) and n.value is True:
            flags += 1
    return (stmts, nodes, odd, ints, flags, len(source), source)


class Renamer(ast.NodeTransformer):
    """Rename ``Name`` nodes (loads and stores) by a mapping; other names stay."""

    def __init__(self, mapping: dict[str, str]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.Name:
        if node.id in self.mapping:
            return ast.copy_location(ast.Name(id=self.mapping[node.id], ctx=node.ctx), node)
        return node


class Swap(ast.NodeTransformer):
    """Put ``new`` where the node ``old`` is (by identity); ``visit`` returns the new root."""

    def __init__(self, old: ast.AST, new: ast.AST) -> None:
        self.old, self.new = old, new

    def visit(self, node: ast.AST) -> ast.AST:
        return self.new if node is self.old else self.generic_visit(node)


class Substitute(ast.NodeTransformer):
    """Replace loads of names by expressions (copied at every use)."""

    def __init__(self, mapping: dict[str, ast.expr]) -> None:
        self.mapping = mapping

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if isinstance(node.ctx, ast.Load) and node.id in self.mapping:
            import copy

            return ast.copy_location(copy.deepcopy(self.mapping[node.id]), node)
        return node


def self_attr_loads(tree: ast.AST) -> set[str]:
    """Attribute names read anywhere (``self.fc1`` in forward, ``m.weight`` elsewhere)."""
    return {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load)
    }
