"""Reduction passes: each one proposes smaller programs, the driver decides which to keep.

A pass is a function ``pass_(ctx) -> Iterator[(label, source)]`` that reads the current program
from ``ctx`` and yields candidate sources, most promising first. Passes never run anything
themselves (the generic pass asks ``ctx.check``): they are pure source-to-source edits, tested one
by one in ``tests/unit/test_reduce_passes.py`` with a fake predicate.

Families (one module each): ``forward`` (outputs, truncation, statements, folding), ``cut``
(intermediates become inputs), ``cleanup`` (unused inputs, layers, helpers, imports), ``inline``
(helper functions, methods, submodules), ``shrink`` (layer attributes, shapes, ranks, dtypes), and
here the generic last resort, pysource-minimize.
"""

from __future__ import annotations

from collections.abc import Iterator

from torchsmith.reduce.passes import cleanup, cut, forward, function, inline, shrink
from torchsmith.reduce.passes.base import Candidate, Context, Pass

__all__ = [
    "Candidate", "Context", "Pass", "default_passes", "function_passes", "generic_passes",
]  # fmt: skip


#: Every domain pass by name (each family's passes: see the module docstring).
PASSES: dict[str, Pass] = {
    "inline": inline.inline_calls,
    "drop-outputs": forward.drop_outputs,
    "return-value": forward.return_value,
    "cut": cut.cut_values,
    "inputs": cut.simplify_inputs,
    "drop-statements": forward.drop_statements,
    "cleanup": cleanup.cleanup,
    "layers": shrink.shrink_layers,
    "shapes": shrink.shrink_shapes,
    "dtypes": shrink.simplify_dtypes,
    "fold": forward.fold,
    "calls": function.drop_calls,
    "one-call": function.one_call_as_inputs,
    "args": function.drop_args,
    "inline-helpers": function.inline_helpers,
    "helpers": function.shrink_helpers,
    "module": function.drop_module,
    "settings": function.drop_settings,
    "simplify-args": function.simplify_args,
}

#: The order one round of the driver runs them in, for a model class program.
MODEL_ORDER = "inline drop-outputs return-value cut inputs drop-statements cleanup layers shapes"
MODEL_ORDER += " dtypes fold"
#: ... and for a function program (``fn``): cheap deletions first (fewer calls, outputs and
#: statements, helpers inlined and the module cleaned, settings dropped), then arguments,
#: shapes, scalars and dtypes simplified.
FUNCTION_ORDER = "calls one-call drop-outputs return-value drop-statements args inline-helpers"
FUNCTION_ORDER += " helpers"
FUNCTION_ORDER += " module settings simplify-args fold"


def default_passes() -> list[tuple[str, Pass]]:
    """The domain passes in the order one round of the driver runs them."""
    return [(name, PASSES[name]) for name in MODEL_ORDER.split()]


def function_passes() -> list[tuple[str, Pass]]:
    """The passes for a function program (``fn``), in ``FUNCTION_ORDER``."""
    return [(name, PASSES[name]) for name in FUNCTION_ORDER.split()]


def pysource_minimize(ctx: Context) -> Iterator[Candidate]:
    """The generic last pass: pysource-minimize (15r10nk) over the whole program.

    It knows Python's AST but nothing of PyTorch: it removes statements, replaces expressions by
    their children, simplifies constants and names, and asks a predicate each time. It finds what
    the domain passes cannot express (an ``if`` lifted to its body, an argument dropped), but it
    asks sequentially and many times, so it runs last, on an already small program, through
    ``ctx.check`` (cached, budgeted, the same strict test as every other candidate).
    """
    try:
        from pysource_minimize import minimize
    except ImportError:  # pragma: no cover - a declared dependency
        return
    try:
        result = minimize(ctx.program.source, ctx.check, retries=0)
    except Exception:  # CouldNotMinimize, or the tool failing on an unusual AST
        return
    if result.strip() != ctx.program.source.strip():
        yield "pysource-minimize", result if result.endswith("\n") else result + "\n"


def generic_passes() -> list[tuple[str, Pass]]:
    return [("pysource-minimize", pysource_minimize)]
