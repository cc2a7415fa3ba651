"""``explain``, ``recompiles``, ``debug``, ``logs``, ``profile`` and ``minify``: the
troubleshooting commands, one program each (``--only NAME`` compiles one part of it).

Exit status: 0 the report was produced; 1 the compiled run raised (the report says what was
captured before); 2 usage error, a program that does not load, hangs or kills the worker.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from torchsmith.cli.common import build_options, check_options, emit_report, fail, output_option
from torchsmith.program.format import Program, ProgramFormatError
from torchsmith.program.load import load_program

#: The program a troubleshooting command works on.
file_argument = click.argument("file", type=click.Path(path_type=Path))


def report_options(f: Any) -> Any:
    """``--json`` (the report as one JSON object), ``--only`` and the check options: what every
    troubleshooting command that prints a report takes."""
    f = check_options(f)
    f = only_option(f)
    return click.option(
        "--json", "as_json", is_flag=True, help="The report as one JSON object (schema 1)."
    )(f)


def only_option(f: Any) -> Any:
    """``--only NAME``: compile just that submodule, method or function (CheckOptions.only)."""
    return click.option(
        "--only",
        default=None,
        metavar="NAME",
        help="Compile only this submodule (block1, self.block1.fc), method or program function;"
        " the rest runs eagerly (like TORCHDYNAMO_DEBUG_FUNCTION).",
    )(f)


def _load(file: Path, device: str) -> Program:
    try:
        return load_program(file, device=device, scripts=False)
    except ProgramFormatError as e:
        fail(str(e))


@click.command()
@file_argument
@report_options
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
    emit_report(report, as_json, format_explain)


@click.command()
@file_argument
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
@file_argument
@output_option("Folder for the artifacts. Default: ./debug-<program name>.")
@click.option("--json", "as_json", is_flag=True, help="Print the index (index.json) instead.")
@only_option
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


@click.command()
@file_argument
@click.option(
    "--what",
    "what",
    multiple=True,
    metavar="NAMES",
    help="TORCH_LOGS names, comma-separated or repeated: dynamo, aot, inductor (+name: debug),"
    " graph_breaks, recompiles, guards, graph_code, aot_graphs, output_code, trace_bytecode, ..."
    " Default: dynamo,aot,inductor,graph_breaks,recompiles.",
)
@click.option("--full", is_flag=True, help="Print long messages (code, graphs) whole.")
@report_options
def logs(file: Path, what: tuple[str, ...], full: bool, as_json: bool, **kw: Any) -> None:
    """One compiled run of FILE with TORCH_LOGS captured, grouped by step of compilation.

    Steps are Dynamo's "Step N" markers (1 Dynamo, 2 backend compiler, 3 Inductor) per compile
    id; when the run raises, the step begun and not done is named. Example:
    torchsmith logs model.py --what +dynamo,guards,output_code
    """
    from torchsmith.troubleshoot import TroubleshootError, format_logs, logs_program
    from torchsmith.troubleshoot.logs import DEFAULT_WHAT, parse_what

    options = build_options(kw)
    try:
        names = parse_what(list(what)) if what else list(DEFAULT_WHAT)
    except ValueError as e:
        fail(str(e))
    program = _load(file, options.device)
    try:
        report = logs_program(program, names, options)
    except (TroubleshootError, ValueError) as e:
        fail(str(e))
    click.echo(json.dumps(report) if as_json else format_logs(report, None if full else 40))
    sys.exit(1 if report.get("error") else 0)


@click.command()
@file_argument
@click.option("--warmup", default=3, show_default=True, help="Untimed calls before timing.")
@click.option("--repeat", default=20, show_default=True, help="Timed calls per mode.")
@click.option(
    "--cache/--no-cache",
    default=False,
    show_default=True,
    help="Keep Inductor's FX-graph and AOTAutograd caches on (a hit skips lowering).",
)
@click.option(
    "--trace",
    type=click.Path(path_type=Path),
    default=None,
    help="Write the torch profiler's Chrome trace of 5 compiled calls here (Perfetto).",
)
@report_options
def profile(
    file: Path,
    warmup: int,
    repeat: int,
    cache: bool,
    trace: Path | None,
    as_json: bool,
    **kw: Any,
) -> None:
    """Compile time of FILE per stage (Dynamo, AOTAutograd, Inductor lowering, scheduling,
    codegen, C++/Triton compile, guards), graph and recompile counts, and steady-state run time
    eager vs compiled (median, quartiles, spread) with the speedup.
    """
    from torchsmith.troubleshoot import TroubleshootError, format_profile, profile_program

    options = build_options(kw)
    if warmup < 0 or repeat < 1:
        fail("--warmup must be >= 0 and --repeat >= 1")
    program = _load(file, options.device)
    try:
        report = profile_program(
            program,
            options,
            warmup=warmup,
            repeat=repeat,
            cache=cache,
            trace=str(trace.resolve()) if trace else None,
        )
    except TroubleshootError as e:
        fail(str(e))
    emit_report(report, as_json, format_profile)


@click.command()
@file_argument
@output_option(
    "Folder for torch's minifier files and the report. Default: ./minify-<program>, or"
    " <finding>/pytorch-minifier for a finding folder."
)
@click.option(
    "--after",
    type=click.Choice(["auto", "dynamo", "aot"]),
    default="auto",
    show_default=True,
    help="TORCHDYNAMO_REPRO_AFTER. auto: aot for an Inductor failure, dynamo otherwise.",
)
@click.option(
    "--accuracy/--no-accuracy",
    default=None,
    help="TORCHDYNAMO_REPRO_LEVEL=4 (wrong values). Default: from the verdict.",
)
@click.option(
    "--isolate", is_flag=True, help="One process per minifier query (PyTorch's default; slow)."
)
@click.option(
    "--time-budget",
    default=300.0,
    show_default=True,
    help="Seconds the minifier may run; past them it gives up and keeps its best graph.",
)
@report_options
def minify(
    file: Path,
    output: Path | None,
    after: str,
    accuracy: bool | None,
    isolate: bool,
    time_budget: float,
    as_json: bool,
    **kw: Any,
) -> None:
    """Run PyTorch's minifier on the failure of FILE (a program or a finding folder) and check
    the minified repro with torchsmith: the same verdict and stage, or not.

    A finding folder is minified with the options it was found with (--only applies on top)
    and the minified program is written next to the report as a finding folder.

    Exit status: 0 the minified repro fails the same way; 1 it does not, or the minifier gave
    up (the reason is printed); 2 usage error, or FILE does not fail (nothing to minify).
    """
    from torchsmith.troubleshoot import (
        TroubleshootError,
        format_minify,
        minify_finding,
        minify_program,
    )

    options = build_options(kw)
    args: dict[str, Any] = dict(
        after=after, accuracy=accuracy, isolate=isolate, time_budget=time_budget
    )
    try:
        if file.is_dir() and (file / "meta.json").exists():  # a finding: its own options
            report = minify_finding(file, output, only=options.only, **args)
        else:
            program = _load(file, options.device)
            out = output or Path(f"minify-{program.name}")
            report = minify_program(program, out, options, **args)
    except (TroubleshootError, ValueError) as e:
        fail(str(e))
    click.echo(json.dumps(report) if as_json else format_minify(report))
    if report["status"] == "nothing to minify":
        click.echo(f"torchsmith: nothing to minify: {report['reason']}", err=True)
        sys.exit(2)
    sys.exit(0 if report["same_failure"] else 1)
