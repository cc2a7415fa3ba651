"""``explain``, ``recompiles`` and ``debug``: the troubleshooting commands, one program each.

Exit status: 0 the report was produced; 1 the compiled run raised (the report says what was
captured before); 2 usage error, a program that does not load, hangs or kills the worker.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from torchsmith.cli.common import build_options, check_options, fail, output_option
from torchsmith.program.format import Program, ProgramFormatError
from torchsmith.program.load import load_program


def _load(file: Path, device: str) -> Program:
    try:
        return load_program(file, device=device, scripts=False)
    except ProgramFormatError as e:
        fail(str(e))


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="The report as one JSON object (schema 1).")
@check_options
def explain(file: Path, as_json: bool, **kw: Any) -> None:
    """Graphs Dynamo captures for FILE, each graph break with its reason and line, ops per graph.

    Compiles with the given --backend wrapped in PyTorch's explain backend and captures the
    graph_breaks log. JSON fields: see notes/troubleshoot.md.
    """
    from torchsmith.troubleshoot import TroubleshootError, explain_program, format_explain

    options = build_options(kw)
    program = _load(file, options.device)
    try:
        report = explain_program(program, options)
    except TroubleshootError as e:
        fail(str(e))
    click.echo(json.dumps(report) if as_json else format_explain(report))
    sys.exit(1 if report.get("error") else 0)


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--vary",
    "varies",
    multiple=True,
    required=True,
    metavar="SPEC",
    help="dim=D:S1,S2 | input=K,dim=D:S1,S2 | dtype=T1,T2 | attr=NAME:V1,V2 (repeatable).",
)
@click.option("--recompile-limit", type=int, default=None, help="torch._dynamo recompile_limit.")
@click.option("--json", "as_json", is_flag=True, help="The report as one JSON object (schema 1).")
@check_options
def recompiles(
    file: Path, varies: tuple[str, ...], recompile_limit: int | None, as_json: bool, **kw: Any
) -> None:
    """Call the compiled model of FILE over varying shapes, dtypes or attributes; show each
    recompilation with the guard that failed, and whether the recompile limit was hit.

    Step 0 runs FILE as written; each later step changes one thing. Example:
    torchsmith recompiles model.py --vary dim=0:2,4,8 --no-dynamic
    """
    from torchsmith.troubleshoot import (
        TroubleshootError,
        format_recompiles,
        parse_vary,
        recompiles_program,
    )

    options = build_options(kw)
    try:
        specs = [parse_vary(v) for v in varies]
    except ValueError as e:
        fail(str(e))
    if recompile_limit is not None and recompile_limit < 1:
        fail("--recompile-limit must be at least 1")
    program = _load(file, options.device)
    try:
        report = recompiles_program(program, specs, options, recompile_limit=recompile_limit)
    except TroubleshootError as e:
        fail(str(e))
    click.echo(json.dumps(report) if as_json else format_recompiles(report))


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
@output_option("Folder for the artifacts. Default: ./debug-<program name>.")
@click.option("--json", "as_json", is_flag=True, help="Print the index (index.json) instead.")
@check_options
def debug(file: Path, output: Path | None, as_json: bool, **kw: Any) -> None:
    """Capture the compile artifacts of one run of FILE into a folder and say what is where.

    FX graphs (Dynamo's and Inductor's), Inductor IR before and after fusion, the generated
    code, the TORCH_TRACE log (through tlparse when it is installed), per-stage compile times.
    """
    from torchsmith.troubleshoot import TroubleshootError, debug_program, format_debug

    options = build_options(kw)
    program = _load(file, options.device)
    out = output or Path(f"debug-{program.name}")
    try:
        index = debug_program(program, out, options)
    except TroubleshootError as e:
        fail(str(e))
    click.echo(json.dumps(index) if as_json else format_debug(index))
    if index["status"] == "failed":
        click.echo(f"torchsmith: {index['error']}", err=True)
        sys.exit(2)
    sys.exit(1 if index["status"] == "crash" else 0)
