"""Reading a program: the one place that decides "canonical or foreign".

A file in the canonical format (:mod:`torchsmith.program.format`) is taken as it stands; any
other Python file (a repro script pasted from a PyTorch issue) is rewritten into the format by
:mod:`torchsmith.program.foreign`, from its AST alone. Nothing here executes program code.
"""

from __future__ import annotations

from pathlib import Path

from torchsmith.program.foreign import import_script
from torchsmith.program.format import (
    Program,
    ProgramFormatError,
    entry_of,
    is_canonical,
    parse_source,
)


def program_from_source(
    source: str, name: str = "program", path: str | None = None, device: str = "cpu"
) -> Program:
    """Read source text as a program: canonical as it stands, otherwise imported as a repro script."""
    tree = parse_source(source, path or name)
    if is_canonical(tree):
        model = entry_of(tree, path or name)
        return Program(source=source, model=model, name=name, origin="canonical", path=path)
    return import_script(source, name=name, path=path, device=device)


def load_program(path: str | Path, device: str = "cpu") -> Program:
    """Load a program file (canonical or a foreign repro script) without executing it."""
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
    return program_from_source(source, name=p.stem, path=str(p), device=device)
