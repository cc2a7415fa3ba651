"""The ops a program uses, read from its AST: canonical op names, the ops behind one output,
and a program's size. Signatures (:mod:`torchsmith.dedup`), coverage and the campaign's counts
all read ops through here; nothing here executes program code."""

from __future__ import annotations

import ast

from torchsmith.program.format import Program, dotted_name
from torchsmith.program.slicing import output_slice

# -- ops of a program -----------------------------------------------------------------------------
#: Calls that build or wire the model rather than compute: never part of a signature.
_NOT_OPS = {
    "parameter",
    "module",
    "modulelist",
    "moduledict",
    "sequential",
    "parameterlist",
    "parameterdict",
    "identity",
    "generator",
    "manual_seed",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "register_buffer",
    "register_parameter",
    "super",
    "size",
    "dim",
    "numel",
    "append",
    "extend",
    "items",
    "keys",
    "values",
    "format",
    "get",
    "ndimension",
    "stride",
    "data_ptr",
    "is_contiguous",
    "__init__",
}
_BUILTINS = {
    "range",
    "len",
    "int",
    "float",
    "bool",
    "list",
    "tuple",
    "dict",
    "isinstance",
    "print",
    "min",
    "max",
    "abs",
    "sum",
    "zip",
    "enumerate",
    "getattr",
    "setattr",
    "hasattr",
    "type",
    "str",
    "any",
    "all",
    "sorted",
    "reversed",
    "round",
    "divmod",
}
_BINOPS = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "div",
    ast.FloorDiv: "floor_divide",
    ast.Mod: "remainder",
    ast.Pow: "pow",
    ast.MatMult: "matmul",
    ast.BitAnd: "bitwise_and",
    ast.BitOr: "bitwise_or",
    ast.BitXor: "bitwise_xor",
    ast.LShift: "bitwise_left_shift",
    ast.RShift: "bitwise_right_shift",
}
_UNARY = {ast.USub: "neg", ast.Invert: "bitwise_not"}
_COMPARE = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
_INPUT_FUNCTIONS = {"get_inputs", "get_init_inputs", "get_kwargs", "get_calls", "before_call"}


def canonical_op(name: str) -> str:
    """``torch.nn.functional.relu`` / ``nn.ReLU`` / ``Tensor.relu`` -> ``relu``."""
    last = name.rsplit(".", 1)[-1]
    return last.lower() if last[:1].isupper() else last


def _torch_imports(tree: ast.Module) -> dict[str, str]:
    """Names the module imports from torch (``from torch._higher_order_ops import scan``,
    ``... import map as map_hop``): local name -> the op's name."""
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "torch":
            for alias in node.names:
                names[alias.asname or alias.name] = alias.name
    return names


def _ops_of(
    fn: ast.AST, compute: bool, calls_out: set[str], imported: dict[str, str] | None = None
) -> set[str]:
    """Ops called in ``fn``. With ``compute`` (code that runs on tensors) every call and operator
    (``*``, ``[...]``, ``<``) counts; without (a constructor) only the layers it builds do. A
    name imported from torch (``imported``) is an op; so is a torch decorator of a function
    (``@torch.compiler.nested_compile_region``: the higher-order op it makes of a call)."""
    imported = imported or {}
    ops: set[str] = set()
    for node in ast.walk(fn):
        if compute and isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for dec in node.decorator_list:
                name = dotted_name(dec.func if isinstance(dec, ast.Call) else dec)
                if name.split(".")[0] == "torch" or name in imported:
                    ops.add(imported.get(name) or canonical_op(name))
        if isinstance(node, ast.Call):
            name = dotted_name(node.func)
            if not name:
                if compute and isinstance(node.func, ast.Attribute):  # (a + b).relu()
                    ops.add(node.func.attr)
                continue
            parts = name.split(".")
            if len(parts) == 1 and parts[0] in imported:
                if compute:
                    ops.add(imported[parts[0]])
                continue
            if len(parts) == 1:
                if parts[0] not in _BUILTINS:
                    calls_out.add(parts[0])
                continue
            if parts[0] == "self" and len(parts) == 2:
                continue  # a submodule call: its type is counted where it is built
            if compute or parts[-1][:1].isupper():
                ops.add(canonical_op(name))
        elif not compute:
            continue
        elif isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            ops.add(_BINOPS[type(node.op)])
        elif isinstance(node, ast.AugAssign) and type(node.op) in _BINOPS:
            ops.add(_BINOPS[type(node.op)] + "_")
        elif isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            ops.add(_UNARY[type(node.op)])
        elif isinstance(node, ast.Compare):
            ops.update(_COMPARE[type(op)] for op in node.ops if type(op) in _COMPARE)
        elif isinstance(node, ast.Subscript):
            base = node.value
            if isinstance(base, ast.Attribute) and base.attr in {"shape", "size"}:
                continue
            ops.add("setitem" if isinstance(node.ctx, ast.Store) else "getitem")
    return {op for op in ops if op.lower() not in _NOT_OPS and not op.startswith("_")}


def source_ops(source: str) -> list[str]:
    """The ops the tested code uses, canonical names, sorted and de-duplicated.

    Only the code of the program's classes counts (``__init__`` for the layers it builds, other
    methods for calls and operators) or, for a function program, its functions, plus the
    module-level functions they call; ``get_inputs`` and input helpers do not: they are the same
    in every generated program and say nothing about the bug.
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    functions = _functions(tree)
    imported = _torch_imports(tree)
    ops: set[str] = set()
    called: set[str] = set()
    methods = 0
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        for item in cls.body:
            if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                ops |= _ops_of(item, item.name != "__init__", called, imported)
                methods += 1
    if not methods:  # a function program: its functions are the tested code
        called |= set(functions) - input_helpers(tree)
    return sorted(ops | _called_ops(functions, called, imported))


def input_helpers(tree: ast.Module) -> set[str]:
    """Module-level functions the input functions (``get_inputs``, ``get_calls``,
    ``before_call``, ...) refer to and nothing else does: ``_rand(shape, seed)``. They are not the
    tested code (signatures leave their ops out; the reducer leaves their bodies alone)."""
    tested = [
        n
        for n in tree.body
        if not (
            isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name in _INPUT_FUNCTIONS
        )
    ]
    used = {n.id for t in tested for n in ast.walk(t) if isinstance(n, ast.Name)}
    by_inputs = {
        n.id
        for t in tree.body
        if isinstance(t, ast.FunctionDef | ast.AsyncFunctionDef) and t.name in _INPUT_FUNCTIONS
        for n in ast.walk(t)
        if isinstance(n, ast.Name)
    }
    return {
        n.name
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        and n.name not in _INPUT_FUNCTIONS
        and n.name in by_inputs
        and n.name not in used
    }


def _functions(tree: ast.Module) -> dict[str, ast.AST]:
    return {
        n.name: n
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name not in _INPUT_FUNCTIONS
    }


def _called_ops(
    functions: dict[str, ast.AST], called: set[str], imported: dict[str, str] | None = None
) -> set[str]:
    """Ops of the module-level functions in ``called`` and of those they call, transitively."""
    ops: set[str] = set()
    seen: set[str] = set()
    while called - seen:
        name = (called - seen).pop()
        seen.add(name)
        if name in functions:
            ops |= _ops_of(functions[name], True, called, imported)
    return ops


def output_ops(source: str, entry: str, output: str) -> list[str] | None:
    """The ops the failing ``output`` depends on (:func:`torchsmith.program.slicing.output_slice`), or
    None when the output cannot be traced back through the tested code."""
    sliced = output_slice(source, entry, output)
    if sliced is None:
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    functions, imported = _functions(tree), _torch_imports(tree)
    forward, init = sliced.body
    called: set[str] = set()
    ops = _ops_of(forward, True, called, imported) | _ops_of(init, False, called, imported)
    return sorted(ops | _called_ops(functions, called, imported))


def program_size(program: Program) -> tuple[int, int]:
    """(code lines, ops): how big an example is; the smallest example of a bug has the least."""
    lines = sum(
        1 for ln in program.source.splitlines() if ln.strip() and not ln.lstrip().startswith("#")
    )
    return lines, len(source_ops(program.source))
