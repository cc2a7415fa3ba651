"""The Python constructs a program uses, read from its AST: what a wrong output at the Dynamo
stage is signed by, since there the tensor ops are incidental and the cause is how Dynamo
simulates Python (``itertools.repeat(times=)``, ``format(n, "b")``, an ``except TypeError``
branch, a user class's ``__contains__``).

A construct is one of

* a builtin called by name (``format``, ``isinstance``, ``vars``), unless the module rebinds
  the name;
* a standard-library name used through its module (``itertools.repeat``,
  ``collections.OrderedDict``, ``enum.Enum``: however it was imported), with the keywords a
  call gives it that are its own parameters (``itertools.repeat(times=)``; a partial's ``c=`` is
  the wrapped function's, data);
* a method of Python's containers and strings called on anything (``move_to_end``, ``index``,
  ``get``): the receiver's type is not known from the source; a special method called by name
  (``.__eq__`` for ``(1).__eq__(1.0)``); a data attribute of Python's own objects read
  (``.keywords`` of a partial, ``.maxlen``, ``.__context__``);
* a special method a class of the program defines (``def __contains__``) and the builtin or
  standard-library bases it derives from (``str``, ``enum.Enum``);
* an attribute set on one of the program's classes or functions (``set:class-attribute`` for
  ``Model.scale = 2.0``), a ``global`` statement, a generator (``yield``), a ``with`` block
  (``with:torch.no_grad`` for a context manager named by its module, else ``with``);
* an exception type an ``except`` clause names (``except:TypeError``; a program's own class is
  ``except:user``), ``str%`` for
  printf-style formatting of a string literal, ``format-spec`` for an f-string's spec.

Invariant: the result depends only on the source text (nothing it names is imported or run), is sorted
and has no duplicates; a program that uses none of these gets ``[]``.
"""

from __future__ import annotations

import ast
import builtins
import collections
import dataclasses
import enum
import functools
import inspect
import itertools
import math
import operator
import re
import sys
import types

from torchsmith.program.format import dotted_name

#: Glue nearly every program uses: a cause is never these alone (``known.same_cause``).
GENERIC_CONSTRUCTS = frozenset(
    {
        "range",
        "len",
        "print",
        "super",
        "int",
        "float",
        "bool",
        "list",
        "tuple",
        "dict",
        "str",
        "zip",
        "enumerate",
        "sum",
        "min",
        "max",
        "abs",
        "append",
        "extend",
        "items",
        "keys",
        "values",
        "add",  # set.add, and every tensor's add
    }
)

_BUILTIN_NAMES = frozenset(n for n in dir(builtins) if not n.startswith("_"))
_CONTAINER_METHODS = frozenset(
    name
    for kind in (
        dict,
        list,
        set,
        str,
        bytes,
        tuple,
        collections.OrderedDict,
        collections.deque,
        collections.Counter,
    )
    for name in dir(kind)
    if not name.startswith("_")
)
#: Data attributes of Python's own objects (a partial's ``keywords``, a deque's ``maxlen``, an
#: exception's ``__context__``, a function's ``__defaults__``): read, they name the construct.
_OBJECT_ATTRIBUTES = frozenset(
    name
    for kind in (functools.partial, BaseException, collections.deque, types.FunctionType)
    for name in dir(kind)
    if not callable(getattr(kind, name, None)) and name not in {"__doc__", "__module__"}
) | {"__context__", "__cause__", "__traceback__", "__dict__", "__class__"}
_STDLIB = frozenset(sys.stdlib_module_names) - {"torch", "numpy"}
#: The standard-library modules whose callables' keywords are told apart from data.
_RESOLVABLE = {
    m.__name__: m for m in (collections, dataclasses, enum, functools, itertools, math, operator)
}


_KIND = {ast.ClassDef: "class", ast.FunctionDef: "function", ast.AsyncFunctionDef: "function"}


def _stdlib_names(tree: ast.Module) -> dict[str, str]:
    """Local name -> the standard-library name it stands for (``od`` -> ``collections.OrderedDict``
    after ``from collections import OrderedDict as od``; ``itertools`` -> ``itertools``)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in _STDLIB:
                    names[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in _STDLIB:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _rebound(tree: ast.Module) -> set[str]:
    """Names the module itself binds (a function ``len``, a global ``format = ...``)."""
    out: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            out.add(node.name)
        elif isinstance(node, ast.Assign):
            out |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return out


def _stdlib_use(node: ast.AST, stdlib: dict[str, str]) -> str:
    """``itertools.repeat`` for ``itertools.repeat`` or an imported ``repeat``, else ``""``."""
    name = dotted_name(node)
    head, _, rest = name.partition(".")
    if not name or head not in stdlib:
        return ""
    return f"{stdlib[head]}.{rest}" if rest else stdlib[head]


def _tested(tree: ast.Module) -> list[ast.AST]:
    """The whole module but a ``__main__`` block: the program's classes and functions, the
    input functions with them (a guard's bug is in what ``before_call`` changes between calls,
    ``move_to_end``; a Python value's in what ``get_inputs`` builds), and a script's top-level
    code (``GlobalState.factor = 10.0`` between two calls)."""
    return [
        n for n in tree.body if not (isinstance(n, ast.If) and "__main__" in ast.unparse(n.test))
    ]


def python_constructs(source: str) -> list[str]:
    """The Python constructs ``source`` uses (see the module docstring)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    stdlib, rebound = _stdlib_names(tree), _rebound(tree)
    kinds = {n.name: _KIND[type(n)] for n in tree.body if type(n) in _KIND}
    out: set[str] = set()
    for top in _tested(tree):
        for node in ast.walk(top):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                if isinstance(node.value, ast.Name) and node.value.id in kinds:
                    out.add(f"set:{kinds[node.value.id]}-attribute")  # Model.scale = 2.0
            elif isinstance(node, ast.Global):
                out.add("global")
            elif isinstance(node, ast.Yield | ast.YieldFrom):
                out.add("yield")
            elif isinstance(node, ast.With | ast.AsyncWith):
                for item in node.items:
                    ctx = item.context_expr
                    name = dotted_name(ctx.func if isinstance(ctx, ast.Call) else ctx)
                    out.add(f"with:{name}" if "." in name else "with")
            elif isinstance(node, ast.ClassDef):
                for base in node.bases:
                    name = _stdlib_use(base, stdlib) or dotted_name(base)
                    if name in _BUILTIN_NAMES or "." in name and name.split(".")[0] in _STDLIB:
                        out.add(f"base:{name}")
                out |= {
                    f"def:{item.name}"
                    for item in node.body
                    if isinstance(item, ast.FunctionDef)
                    and item.name.startswith("__")
                    and item.name.endswith("__")
                    and item.name != "__init__"
                }
            elif isinstance(node, ast.Call):
                if used := _stdlib_use(node.func, stdlib):
                    kws = sorted(
                        k.arg for k in node.keywords if k.arg and _own_keyword(used, k.arg)
                    )
                    out.add(f"{used}({'='.join(kws)}=)" if kws else used)
                elif isinstance(node.func, ast.Name):
                    if node.func.id in _BUILTIN_NAMES and node.func.id not in rebound:
                        out.add(node.func.id)
                elif isinstance(node.func, ast.Attribute):
                    attr = node.func.attr
                    if attr in _CONTAINER_METHODS:
                        out.add(attr)
                    elif attr.startswith("__") and attr.endswith("__") and attr != "__init__":
                        out.add(f".{attr}")  # a special method called as one: (1).__eq__(1.0)
            elif isinstance(node, ast.Attribute | ast.Name) and isinstance(node.ctx, ast.Load):
                if not isinstance(node, ast.Name) or node.id in stdlib:
                    if used := _stdlib_use(node, stdlib):
                        out.add(used)
                    elif isinstance(node, ast.Attribute) and node.attr in _OBJECT_ATTRIBUTES:
                        out.add(f".{node.attr}")
            elif isinstance(node, ast.ExceptHandler) and node.type is not None:
                caught = node.type.elts if isinstance(node.type, ast.Tuple) else [node.type]
                out |= {
                    f"except:{_exception_name(dotted_name(k))}" for k in caught if dotted_name(k)
                }
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
                if isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
                    out.add("str%")
            elif isinstance(node, ast.FormattedValue) and node.format_spec is not None:
                out.add("format-spec")
    return sorted(_outermost(out))


def _exception_name(name: str) -> str:
    """A builtin exception by its name, a program's own exception class as ``user``."""
    return name if name in _BUILTIN_NAMES else "user"


@functools.cache
def _own_keyword(used: str, keyword: str) -> bool:
    """Whether ``keyword`` is a parameter of the standard-library callable ``used`` names
    (``times`` of ``itertools.repeat``, ``maxlen`` of ``collections.deque``), not data it passes
    on (a partial's ``c=``, an OrderedDict's ``a=``): by its signature, else (a C type) by its
    docstring's first lines. Only the modules in ``_RESOLVABLE`` are looked into (never an import
    of what a program names: ``antigravity`` opens a browser), so every process signs alike; a
    name elsewhere keeps every keyword."""
    module, _, attr = used.partition(".")
    try:
        obj = functools.reduce(getattr, attr.split("."), _RESOLVABLE[module])
    except (KeyError, AttributeError):
        return True
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):  # a C type: its docstring's call line names its parameters
        head = (getattr(obj, "__doc__", None) or "")[:300]
        return re.search(rf"\b{re.escape(keyword)}\b", head) is not None
    named = params.get(keyword)
    return named is not None and named.kind is not inspect.Parameter.VAR_KEYWORD


def _outermost(found: set[str]) -> set[str]:
    """Drop a module or name that a longer use of it covers (``itertools`` under
    ``itertools.repeat``, ``itertools.repeat`` under ``itertools.repeat(times=)``)."""
    return {
        c
        for c in found
        if not any(o != c and (o.startswith(c + ".") or o.startswith(c + "(")) for o in found)
    }
