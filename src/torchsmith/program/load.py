"""Reading a program: the one place that decides "canonical or foreign".

A file in the canonical format (:mod:`torchsmith.program.format`) is taken as it stands. Any
other Python file (a repro script pasted from a PyTorch issue) is either kept as a *script*
(``origin="script"``: checked as it stands, run whole in a worker with ``torch.compile``
intercepted, see :mod:`torchsmith.oracle.script`), or, with ``scripts=False``, rewritten into
the canonical format by :mod:`torchsmith.program.foreign` from its AST alone (what ``import``,
``reduce`` and the troubleshooting commands work on). Nothing here executes program code.
"""

from __future__ import annotations

import ast
from pathlib import Path

from torchsmith.program.foreign import import_script
from torchsmith.program.foreign_ast import DeviceRewriter
from torchsmith.program.format import (
    Program,
    ProgramFormatError,
    entry_of,
    is_canonical,
    parse_source,
)

#: ``Program.model`` of a script: it tests whatever it compiles.
SCRIPT_ENTRY = "__script__"


def as_script(source: str, name: str, path: str | None, device: str) -> Program:
    """A repro script kept as it stands (device strings mapped for ``device``, see
    :class:`~torchsmith.program.foreign_ast.DeviceRewriter`; the text is left untouched when
    it names no other device, so line numbers stay the user's)."""
    tree = parse_source(source, path or name)
    if device == "cpu" and ("cuda" in source or "xpu" in source or ".to(" in source):
        rewritten = ast.unparse(ast.fix_missing_locations(DeviceRewriter(device).visit(tree)))
        if ast.dump(ast.parse(rewritten)) != ast.dump(ast.parse(source)):
            source = rewritten + "\n"
            path = None  # the text on disk is not what runs: tracebacks quote this one
    return Program(source=source, model=SCRIPT_ENTRY, name=name, origin="script", path=path)


def program_from_source(
    source: str,
    name: str = "program",
    path: str | None = None,
    device: str = "cpu",
    scripts: bool = True,
) -> Program:
    """Read source text as a program: canonical as it stands; otherwise a repro script, kept
    as a script (``scripts``) or imported into the canonical format."""
    tree = parse_source(source, path or name)
    if is_canonical(tree):
        model = entry_of(tree, path or name)
        return Program(source=source, model=model, name=name, origin="canonical", path=path)
    if scripts:
        return as_script(source, name, path, device)
    return import_script(source, name=name, path=path, device=device)


def load_program(path: str | Path, device: str = "cpu", scripts: bool = True) -> Program:
    """Load a program file (canonical, or a repro script: see :func:`program_from_source`)
    without executing it."""
    p = Path(path)
    if not p.exists():
        raise ProgramFormatError(f"{p}: no such file")
    if p.is_dir():
        prog = p / "program.py"
        if prog.exists():
            p = prog
        else:
            raise ProgramFormatError(f"{p}: is a directory without program.py")
    try:
        source = p.read_text()
    except UnicodeDecodeError:
        raise ProgramFormatError(f"{p}: not a UTF-8 text file") from None
    return program_from_source(source, name=p.stem, path=str(p), device=device, scripts=scripts)
