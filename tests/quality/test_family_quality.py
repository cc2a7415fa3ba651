"""The families produce the shapes public bug reports have, within a stated number of seeds.

Written from the facts of public PyTorch issues (the shapes, not the code): a generator that
stops producing one of them has lost a bug class. Generation only (a stand-in eager check that
accepts everything): no worker, no compile.
"""

from __future__ import annotations

import ast

import pytest

from torchsmith.generate.protocol import GenContext, get_generator
from torchsmith.verdict import CheckResult, Verdict

ACCEPT = GenContext(eager_check=lambda program: CheckResult(Verdict.PASS))


def _sources(family: str, n: int, **options):
    gen = get_generator(family, **options)
    try:
        for seed in range(n):
            program = gen.generate(seed, ACCEPT)
            if program is not None:
                yield seed, program.source
    finally:
        gen.close()


def _first(family: str, n: int, found, **options) -> int | None:
    for seed, src in _sources(family, n, **options):
        if found(ast.parse(src), src):
            return seed
    return None


def _grows_while_iterating(tree: ast.Module, src: str) -> bool:
    """#175855: a list appended to inside a loop over that same list."""
    for loop in (n for n in ast.walk(tree) if isinstance(n, ast.For)):
        it = ast.unparse(loop.iter)
        for call in (n for n in ast.walk(loop) if isinstance(n, ast.Call)):
            f = call.func
            if isinstance(f, ast.Attribute) and f.attr == "append" and ast.unparse(f.value) == it:
                return True
    return False


def _class_attr_changed_between_calls(tree: ast.Module, src: str) -> bool:
    """#176851: a class attribute the compiled code reads, changed by before_call."""
    before = next((n for n in tree.body if getattr(n, "name", "") == "before_call"), None)
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    if before is None:
        return False
    return any(
        isinstance(t, ast.Attribute) and ast.unparse(t.value) in classes
        for n in ast.walk(before) if isinstance(n, ast.Assign) for t in n.targets
    )  # fmt: skip


def _aliased_inputs_mutated(tree: ast.Module, src: str) -> bool:
    """#139789 / #198101: one input passed twice or with a view of it, and an in-place op."""
    inputs = next((n for n in tree.body if getattr(n, "name", "") in ("get_inputs", "get_calls")),
                  None)  # fmt: skip
    if inputs is None:
        return False
    text = ast.unparse(inputs)
    inplace = any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
        and n.func.attr.endswith("_") and not n.func.attr.startswith("_")
        for n in ast.walk(tree)
    )  # fmt: skip
    returns = [n for n in ast.walk(inputs) if isinstance(n, ast.Return)]
    for r in returns:
        names = [ast.unparse(e) for e in ast.walk(r.value) if isinstance(e, ast.Name)]
        root_reused = any(names.count(x) > 1 for x in set(names))
        if (root_reused or "[" in text) and inplace:
            return True
    return False


def _low_precision_compare_with_scalar(tree: ast.Module, src: str) -> bool:
    """#173987: a bfloat16/float16 tensor compared with a Python float."""
    if "bfloat16" not in src and "float16" not in src:
        return False
    for call in (n for n in ast.walk(tree) if isinstance(n, ast.Call)):
        name = ast.unparse(call.func).rsplit(".", 1)[-1]
        if name in {"eq", "ne", "lt", "le", "gt", "ge"} and any(
            isinstance(a, ast.Constant) and isinstance(a.value, float)
            for a in [*call.args, *(k.value for k in call.keywords)]
        ):
            return True
    return False


def _dtype_keyword(tree: ast.Module, src: str) -> bool:
    """Reductions and casts with a ``dtype=`` keyword (#189518 and many more)."""
    return any(
        isinstance(n, ast.Call) and any(k.arg == "dtype" for k in n.keywords)
        and ast.unparse(n.func).rsplit(".", 1)[-1] not in ("tensor", "make_tensor", "full")
        for n in ast.walk(tree)
    )  # fmt: skip


@pytest.mark.parametrize(
    "family,n,shape,options",
    [
        ("python", 300, _grows_while_iterating, {}),
        ("python", 300, _class_attr_changed_between_calls, {}),
        ("python", 300, _aliased_inputs_mutated, {}),
        ("opinfo", 200, _low_precision_compare_with_scalar,
         {"ops": "^(eq|ne|lt|le|gt|ge)$", "dtypes": "bfloat16,float16"}),
        ("opinfo", 200, _dtype_keyword, {}),
    ],
)  # fmt: skip
def test_the_family_produces_the_reported_shape(family, n, shape, options):
    seed = _first(family, n, shape, **options)
    assert seed is not None, f"{family} made no {shape.__name__} program in {n} seeds"
