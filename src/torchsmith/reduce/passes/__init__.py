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

import ast
import dataclasses
from collections.abc import Callable, Iterator

from torchsmith.program.format import Program
from torchsmith.reduce.probe import Records
from torchsmith.reduce.source import View, dce, loads, view

Candidate = tuple[str, str]  # (label for the log, candidate source)


@dataclasses.dataclass
class Context:
    """What a pass may read: the current program, its probe records (lazily, from a worker) and,
    for the generic pass only, a sequential interestingness check on a source."""

    program: Program
    probe: Callable[[], Records | None] = lambda: None
    check: Callable[[str], bool] = lambda source: False

    def view(self) -> View:
        return view(self.program.source, self.program.model)


Pass = Callable[[Context], Iterator[Candidate]]


def drop_params(v: View, names: set[str], *, simple_only: bool = True) -> bool:
    """Remove forward parameters ``names`` and their entries in the inputs list. With
    ``simple_only`` an entry is removed only when it is a name or a constant (removing an inline
    ``torch.randn(...)`` would shift the global RNG for the inputs after it)."""
    params = v.forward_params()
    lst = v.inputs_list()
    if params is None or lst is None or len(lst.elts) != len(params):
        return False
    keep = []
    changed = False
    for p, e in zip(params, lst.elts):
        if p.arg in names and (not simple_only or isinstance(e, ast.Name | ast.Constant)):
            changed = True
            continue
        keep.append((p, e))
    if changed:
        fwd = v.forward
        assert fwd is not None
        fwd.args.args = [fwd.args.args[0]] + [p for p, _ in keep]
        lst.elts = [e for _, e in keep]
    return changed


def unused_params(v: View) -> set[str]:
    fwd = v.forward
    params = v.forward_params()
    if fwd is None or params is None:
        return set()
    used = set().union(*(loads(s) for s in fwd.body)) if fwd.body else set()
    return {p.arg for p in params} - used


def tidy(v: View) -> None:
    """The clean-up every forward edit ends with: dead code out, then unused inputs out."""
    fwd = v.forward
    if fwd is None:
        return
    fwd.body = dce(fwd.body) or [ast.Pass()]
    drop_params(v, unused_params(v))


def default_passes() -> list[tuple[str, Pass]]:
    """The domain passes in the order one round of the driver runs them."""
    from torchsmith.reduce.passes import cleanup, cut, forward, inline, shrink

    return [
        ("inline", inline.inline_calls),
        ("drop-outputs", forward.drop_outputs),
        ("return-value", forward.return_value),
        ("cut", cut.cut_values),
        ("inputs", cut.simplify_inputs),
        ("drop-statements", forward.drop_statements),
        ("cleanup", cleanup.cleanup),
        ("layers", shrink.shrink_layers),
        ("shapes", shrink.shrink_shapes),
        ("dtypes", shrink.simplify_dtypes),
        ("fold", forward.fold),
    ]


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
