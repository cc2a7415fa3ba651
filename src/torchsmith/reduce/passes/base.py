"""What every reduction pass shares: the context it reads, the candidate type, and the edits
that end most forward changes (drop unused inputs, dead code out)."""

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
        first = [] if v.is_function else [fwd.args.args[0]]
        fwd.args.args = first + [p for p, _ in keep]
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
