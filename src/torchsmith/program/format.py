"""The canonical test-program format.

A canonical program is Python source that defines

* ``class Model(nn.Module)`` (another class name may be named in ``Program.model``),
* ``get_inputs()`` returning the list of forward arguments, or a module-level ``inputs = [...]``,
* optionally ``get_init_inputs()`` returning the constructor's positional arguments (a list) or
  keyword arguments (a dict). This is the KernelBench convention.

This module only defines the format: :class:`Program`, the rules a canonical file follows, and
the AST helpers the importer shares. Reading a file (canonical as it stands, or a repro script
rewritten by :mod:`torchsmith.program.foreign`) is :mod:`torchsmith.program.load`'s. Nothing
here executes program code: that happens only in the worker processes.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import json
from typing import Any

#: Module-level calls a canonical file may make besides definitions (seeding and config only).
_ALLOWED_TOPLEVEL_CALLS = {
    "torch.manual_seed",
    "random.seed",
    "np.random.seed",
    "numpy.random.seed",
    "torch.set_grad_enabled",
    "torch.set_default_dtype",
}


class ProgramFormatError(ValueError):
    """The file cannot be read as a test program; the message says exactly what is missing."""


@dataclasses.dataclass(frozen=True)
class Program:
    """A test program: canonical source plus the name of its model class.

    ``origin`` says where it came from: ``canonical`` (a user file in the format),
    ``foreign`` (imported from a repro script), ``generated`` or ``mutated``.
    """

    source: str
    model: str = "Model"
    name: str = "program"
    origin: str = "canonical"
    path: str | None = None
    notes: tuple[str, ...] = ()

    @property
    def digest(self) -> str:
        """A short content hash: the same source and model class give the same digest."""
        h = hashlib.sha256(f"{self.model}\0{self.source}".encode())
        return h.hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Program:
        d = dict(d)
        d["notes"] = tuple(d.get("notes", ()))
        return cls(**d)

    def to_json(self) -> str:
        return json.dumps(self.to_dict())


def dotted_name(node: ast.AST) -> str:
    """``torch.nn.functional.relu`` for the matching Attribute/Name chain, else ``""``."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def module_classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}


def nn_module_classes(tree: ast.Module) -> list[str]:
    """Top-level classes that derive from ``nn.Module``, directly or through another local class."""
    classes = module_classes(tree)
    found: list[str] = []

    def is_module(name: str, seen: frozenset[str] = frozenset()) -> bool:
        cls = classes.get(name)
        if cls is None or name in seen:
            return False
        for base in cls.bases:
            b = dotted_name(base)
            if b.split(".")[-1] in {"Module", "Sequential", "ModuleList"} and (
                b.startswith(("nn.", "torch.nn.")) or b in {"Module", "Sequential"}
            ):
                return True
            if is_module(b, seen | {name}):
                return True
        return False

    for name in classes:
        if is_module(name):
            found.append(name)
    return found


def _defines(tree: ast.Module, name: str) -> bool:
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return True
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id == name:
                    return True
    return False


def _is_passive(node: ast.stmt) -> bool:
    """Definitions, imports, assignments and seeding calls: what a canonical file may hold."""
    if isinstance(
        node,
        ast.Import | ast.ImportFrom | ast.FunctionDef | ast.ClassDef | ast.Assign | ast.AnnAssign,
    ):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            return not any(
                isinstance(c, ast.Call) and "compile" in dotted_name(c.func)
                for c in ast.walk(node.value)
            )
        return True
    if isinstance(node, ast.Expr):
        if isinstance(node.value, ast.Constant):  # docstring
            return True
        if isinstance(node.value, ast.Call):
            return dotted_name(node.value.func) in _ALLOWED_TOPLEVEL_CALLS
    return False


def is_canonical(tree: ast.Module) -> bool:
    """True when the module is in the canonical format and can be executed as it stands."""
    if _defines(tree, "get_inputs") or _defines(tree, "get_calls"):
        return True
    return _defines(tree, "inputs") and all(_is_passive(n) for n in tree.body)


#: Functions of the format itself, never the function under test.
PROTOCOL_FUNCTIONS = frozenset(
    {"get_inputs", "get_init_inputs", "get_kwargs", "get_calls", "before_call"}
)
#: Module-level dicts (literals) a program declares its compile settings with, and the check
#: settings it needs (``check_options = {"grad": True}``: compare gradients too).
COMPILE_KWARGS, COMPILE_CONFIG, CHECK_OPTIONS = "compile_kwargs", "compile_config", "check_options"


def entry_of(tree: ast.Module, where: str) -> str:
    """The name of the callable a canonical program tests: ``class Model``; else a function
    named ``fn``; else its only nn.Module subclass; else its only function outside the format's
    own (``get_inputs`` & co.). Raises :class:`ProgramFormatError` saying how to name it."""
    classes = module_classes(tree)
    if "Model" in classes:
        return "Model"
    functions = [
        n.name
        for n in tree.body
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
        and n.name not in PROTOCOL_FUNCTIONS
    ]
    if "fn" in functions:
        return "fn"
    modules = nn_module_classes(tree)
    if len(modules) == 1:
        return modules[0]
    if len(modules) > 1:
        raise ProgramFormatError(
            f"{where}: several nn.Module classes ({', '.join(modules)}) and none is named"
            " `Model`; name the one to test `Model`"
        )
    if len(functions) == 1:
        return functions[0]
    if not functions:
        raise ProgramFormatError(
            f"{where}: nothing to test: define `class Model(nn.Module)` or a function `fn`"
        )
    raise ProgramFormatError(
        f"{where}: several functions ({', '.join(functions)}) and no `class Model`; name the"
        " one to test `fn`"
    )


def declared_settings(source: str) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """The ``compile_kwargs``, ``compile_config`` and ``check_options`` dicts a program declares
    (literals only; ``{}`` when absent or unreadable): what the program is compiled and checked
    with."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}, {}, {}
    found: dict[str, dict[str, Any]] = {COMPILE_KWARGS: {}, COMPILE_CONFIG: {}, CHECK_OPTIONS: {}}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id in found:
                try:
                    value = ast.literal_eval(node.value)
                except (ValueError, SyntaxError, TypeError):
                    continue
                if isinstance(value, dict):
                    found[target.id] = value
    return found[COMPILE_KWARGS], found[COMPILE_CONFIG], found[CHECK_OPTIONS]


def parse_source(source: str, filename: str = "<program>") -> ast.Module:
    try:
        return ast.parse(source, filename=filename)
    except SyntaxError as e:
        raise ProgramFormatError(
            f"{filename}:{e.lineno}: syntax error: {e.msg}"
            + (f"\n    {e.text.rstrip()}" if e.text else "")
        ) from None


def model_class_head(init: list[str]) -> list[str]:
    """The first lines a generator writes for a canonical ``class Model(nn.Module)``: the class
    line and an ``__init__`` holding ``init`` (``forward`` follows)."""
    head = ["class Model(nn.Module):", "    def __init__(self):", "        super().__init__()"]
    return head + [f"        {line}" for line in init]
