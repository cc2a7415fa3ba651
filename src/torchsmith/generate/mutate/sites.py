"""The parsed program that mutation operators work on (:mod:`torchsmith.generate.mutate.operators`).

:class:`Sites` locates the model class, its ``__init__`` and ``forward``, the code that builds the
inputs and the literal input list; :class:`Anchor` is a place in ``forward`` where a tensor
variable is defined, after which operators insert statements. Helpers add module-level functions
(``ts_noncontig``, ``ts_channels_last``) and fresh ``ts_`` names. AST only: nothing executes.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import random
from collections.abc import Callable, Iterator

from torchsmith.program.format import dotted_name, module_classes

HELPERS: dict[str, str] = {
    "ts_noncontig": '''
def ts_noncontig(t):
    """The same values in a non-contiguous layout (transposed storage or every other element)."""
    if not isinstance(t, torch.Tensor) or t.dim() == 0:
        return t
    if t.dim() >= 2 and t.size(-1) > 1 and t.size(-2) > 1:
        return t.transpose(-1, -2).contiguous().transpose(-1, -2)
    return torch.stack([t, t], dim=-1)[..., 0]
''',
    "ts_channels_last": '''
def ts_channels_last(t):
    """Channels-last for 4-D and 5-D tensors, otherwise a non-contiguous layout."""
    if isinstance(t, torch.Tensor) and t.dim() == 4:
        return t.contiguous(memory_format=torch.channels_last)
    if isinstance(t, torch.Tensor) and t.dim() == 5:
        return t.contiguous(memory_format=torch.channels_last_3d)
    return ts_noncontig(t)
''',
}


@functools.cache
def available(form: str, name: str) -> bool:
    """Whether ``torch`` has ``name`` in this call form (introspection only)."""
    import torch

    where = {
        "torch": torch,
        "F": torch.nn.functional,
        "method": torch.Tensor,
        "nn": torch.nn,
    }[form]
    return hasattr(where, name)


# -- the parsed program ----------------------------------------------------------------------
@dataclasses.dataclass
class Anchor:
    """A place in ``forward`` where tensor variable ``name`` is defined: insert at ``body[index]``."""

    body: list[ast.stmt]
    index: int
    name: str
    value: ast.expr | None = None  # the assigned expression (None for a parameter)


@dataclasses.dataclass
class Sites:
    tree: ast.Module
    model: ast.ClassDef
    init: ast.FunctionDef | None
    forward: ast.FunctionDef | None
    get_inputs: ast.FunctionDef | None
    input_list: ast.List | ast.Tuple | None  # the literal list of forward arguments
    input_scope: list[ast.AST]  # what builds the inputs
    init_inputs: ast.FunctionDef | None

    @classmethod
    def of(cls, tree: ast.Module, model: str) -> Sites:
        classes = module_classes(tree)
        if model not in classes:
            raise ValueError(f"no class {model}")
        cls_node = classes[model]
        methods = {n.name: n for n in cls_node.body if isinstance(n, ast.FunctionDef)}
        funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
        gi = funcs.get("get_inputs")
        input_list: ast.List | ast.Tuple | None = None
        scope: list[ast.AST] = []
        if gi is not None:
            scope = [gi]
            for node in ast.walk(gi):
                if isinstance(node, ast.Return) and isinstance(node.value, ast.List | ast.Tuple):
                    input_list = node.value
        else:
            for node in tree.body:
                if isinstance(node, ast.Assign):
                    scope.append(node)
                    names = [t.id for t in node.targets if isinstance(t, ast.Name)]
                    if "inputs" in names and isinstance(node.value, ast.List | ast.Tuple):
                        input_list = node.value
        return cls(
            tree,
            cls_node,
            methods.get("__init__"),
            methods.get("forward"),
            gi,
            input_list,
            scope,
            funcs.get("get_init_inputs"),
        )


def identifiers(tree: ast.AST) -> set[str]:
    out: set[str] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Name):
            out.add(n.id)
        elif isinstance(n, ast.Attribute):
            out.add(n.attr)
        elif isinstance(n, ast.FunctionDef | ast.ClassDef):
            out.add(n.name)
        elif isinstance(n, ast.arg):
            out.add(n.arg)
    return out


def fresh(tree: ast.AST, base: str) -> str:
    taken = identifiers(tree)
    if base not in taken:
        return base
    i = 1
    while f"{base}{i}" in taken:
        i += 1
    return f"{base}{i}"


def stmts(code: str) -> list[ast.stmt]:
    return ast.parse(code).body


def expr(code: str) -> ast.expr:
    return ast.parse(code, mode="eval").body


def ensure_helper(tree: ast.Module, name: str) -> None:
    """Add a module-level helper function (and what it calls) before the first definition."""
    if name == "ts_channels_last":
        ensure_helper(tree, "ts_noncontig")
    if any(isinstance(n, ast.FunctionDef) and n.name == name for n in tree.body):
        return
    pos = next(
        (i for i, n in enumerate(tree.body) if isinstance(n, ast.FunctionDef | ast.ClassDef)),
        len(tree.body),
    )
    tree.body[pos:pos] = stmts(HELPERS[name])


_TUPLE_RESULTS = {
    "chunk",
    "split",
    "unbind",
    "sort",
    "topk",
    "frexp",
    "aminmax",
    "var_mean",
    "std_mean",
    "kthvalue",
    "cummax",
    "cummin",
    "max",
    "min",
    "median",
    "mode",
    "tensor_split",
    "meshgrid",
    "broadcast_tensors",
    "size",
    "tolist",
    "item",
    "dim",
    "numel",
    "unique",
    "svd",
    "qr",
    "eigh",
    "slogdet",
    "lu",
}


def likely_tensor(value: ast.expr | None) -> bool:
    """A cheap guess that an assigned expression is a single tensor."""
    if value is None:
        return True
    if isinstance(value, ast.Call):
        name = dotted_name(value.func).rsplit(".", 1)[-1]
        if isinstance(value.func, ast.Attribute):
            name = value.func.attr
        return name not in _TUPLE_RESULTS
    if isinstance(value, ast.BinOp | ast.UnaryOp):
        return True
    if isinstance(value, ast.Subscript):
        return True
    if isinstance(value, ast.Attribute):
        return value.attr not in {"shape", "dtype", "device", "ndim"}
    return False


def _bodies(fn: ast.FunctionDef) -> list[list[ast.stmt]]:
    """Every statement list inside ``fn`` (its body and nested block bodies)."""
    out = [fn.body]
    for node in ast.walk(fn):
        if node is fn:
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                if not isinstance(node, ast.FunctionDef | ast.ClassDef | ast.Lambda):
                    out.append(block)
    return out


def anchors(sites: Sites) -> list[Anchor]:
    """Where ``forward`` defines tensor variables: its parameters and ``name = ...`` lines."""
    fwd = sites.forward
    if fwd is None:
        return []
    out: list[Anchor] = []
    start = 1 if fwd.body and _is_docstring(fwd.body[0]) else 0
    for a in fwd.args.args[1:]:
        out.append(Anchor(fwd.body, start, a.arg))
    for body in _bodies(fwd):
        for i, st in enumerate(body):
            if isinstance(st, ast.Assign) and len(st.targets) == 1:
                t = st.targets[0]
                if isinstance(t, ast.Name) and likely_tensor(st.value):
                    out.append(Anchor(body, i + 1, t.id, st.value))
            elif isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name):
                out.append(Anchor(body, i + 1, st.target.id, st.value))
    return out


def _is_docstring(st: ast.stmt) -> bool:
    return isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant)


def pick_anchor(sites: Sites, rng: random.Random) -> Anchor | None:
    """An anchor, or a new one made by naming a ``return <expr>`` (semantics unchanged)."""
    found = anchors(sites)
    ret = _plain_return(sites)
    if ret is not None and (not found or rng.random() < 0.3):
        body, i = ret
        name = fresh(sites.tree, "ts_out")
        value = body[i].value  # type: ignore[attr-defined]
        assert value is not None
        body[i : i + 1] = stmts(f"{name} = {ast.unparse(value)}\nreturn {name}")
        return Anchor(body, i + 1, name, body[i].value)  # type: ignore[attr-defined]
    return rng.choice(found) if found else None


def anchored(
    op: Callable[[Sites, random.Random, Anchor], str | None],
) -> Callable[[Sites, random.Random], str | None]:
    """A mutation operator that rewrites after an anchor: ``op(sites, rng, anchor)`` on a
    :func:`pick_anchor` pick, ``None`` when the program has none."""

    @functools.wraps(op)
    def run(sites: Sites, rng: random.Random) -> str | None:
        anchor = pick_anchor(sites, rng)
        return None if anchor is None else op(sites, rng, anchor)

    return run


def _plain_return(sites: Sites) -> tuple[list[ast.stmt], int] | None:
    fwd = sites.forward
    if fwd is None or not fwd.body:
        return None
    last = fwd.body[-1]
    if isinstance(last, ast.Return) and last.value is not None:
        if not isinstance(last.value, ast.Name | ast.Tuple | ast.List | ast.Dict):
            return fwd.body, len(fwd.body) - 1
    return None


def insert_after(anchor: Anchor, code: str, **names: str) -> None:
    anchor.body[anchor.index : anchor.index] = stmts(code.format(v=anchor.name, **names))


def model_nodes(sites: Sites) -> list[ast.AST]:
    return list(ast.walk(sites.model))


def op_calls(sites: Sites) -> Iterator[tuple[ast.Call, str, str]]:
    """The model's calls that name an op, as ``(call, kind, name)`` (see :func:`call_form`)."""
    for node in model_nodes(sites):
        if isinstance(node, ast.Call) and (form := call_form(node)) is not None:
            yield node, *form


def call_form(call: ast.Call) -> tuple[str, str] | None:
    """``("torch" | "F" | "method" | "nn", name)`` for a call that names an op."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    name = dotted_name(func)
    head = name.split(".")[0] if name else ""
    if name.startswith(("torch.nn.functional.", "F.", "nn.functional.")):
        return "F", func.attr
    if name.startswith(("torch.nn.", "nn.")) and name.count(".") == (2 if head == "torch" else 1):
        return "nn", func.attr
    if head == "torch" and name.count(".") == 1:
        return "torch", func.attr
    if head in {"self", "super", "math", "np", "numpy", "random", "F", "nn", "torch"}:
        return None
    return "method", func.attr


def ensure_init(sites: Sites) -> ast.FunctionDef:
    """The model's ``__init__``, created (with ``super().__init__()``) when it has none."""
    if sites.init is None:
        fn = stmts("def __init__(self):\n    super().__init__()")[0]
        assert isinstance(fn, ast.FunctionDef)
        sites.model.body.insert(0, fn)
        sites.init = fn
    return sites.init


def binop_name(op: ast.operator) -> str:
    return type(op).__name__
