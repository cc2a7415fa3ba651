"""``check``, ``render`` and ``import``: one program at a time."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from rich.console import Console

from torchsmith.cli.common import (
    EXIT_USAGE,
    build_options,
    check_options,
    fail,
    output_option,
    python_option,
)
from torchsmith.cli.troubleshoot import only_option
from torchsmith.program.format import ProgramFormatError
from torchsmith.program.load import load_program


@click.command()
@click.argument("files", nargs=-1, type=click.Path(path_type=Path))
@click.option("--examples", is_flag=True, help="Check the built-in example programs.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per program (schema v1).")
@click.option(
    "--repro-dir", type=click.Path(path_type=Path), help="Write a repro script per failure."
)
@click.option("-v", "--verbose", is_flag=True)
@click.option(
    "--canary/--no-canary",
    default=True,
    show_default=True,
    help="On a crash, death or hang, check a trivial program on the same path: when it fails"
    " the same way, say the cause is this machine's setup or the whole path.",
)
@python_option
@only_option
@check_options
def check(
    files: tuple[Path, ...],
    examples: bool,
    as_json: bool,
    repro_dir: Path | None,
    verbose: bool,
    canary: bool,
    python: str | None,
    **kw: Any,
) -> None:
    """Check program FILES: eager vs torch.compile vs float64, crash-safe, with the stage.

    Exit status: 0 all pass, 1 a compiler bug was found, 2 a program is invalid or cannot be
    judged, or the command was used wrongly. Without FILES (or with --examples) it checks the
    built-in examples and exits 0 when each gets the verdict it declares.
    """
    from torchsmith.check import CheckError, check_files
    from torchsmith.examples import example_paths, expected_verdict
    from torchsmith.report.console import headline, print_result

    options = build_options(kw)
    if options.only:  # scripts run whole, as written: nothing to pick a part of
        for path in files:
            try:
                if load_program(path, device=options.device).origin == "script":
                    fail(f"{path}: --only needs a canonical program; `torchsmith import` it first")
            except ProgramFormatError:
                pass  # reported by the check itself
    defaults = example_paths() if examples or not files else []
    paths = list(files) + defaults
    console = Console(stderr=as_json, soft_wrap=True)
    codes: list[int] = []
    unexpected: list[str] = []
    try:
        for path, result, error in check_files(paths, options, repro_dir, python, canary):
            if error is not None:
                codes.append(EXIT_USAGE)
                if as_json:
                    click.echo(json.dumps({"schema": 1, "program": str(path), "error": error}))
                click.echo(f"torchsmith: {error}", err=True)
                continue
            assert result is not None
            codes.append(result.exit_code)
            expected = expected_verdict(path) if path in defaults else None
            if expected and expected != result.verdict.value:
                unexpected.append(f"{path.name}: expected {expected}, got {result.verdict.value}")
            if as_json:
                click.echo(json.dumps(result.to_dict()))
            else:
                print_result(result, console, verbose=verbose)
            if result.exit_code:
                click.echo(headline(result).splitlines()[0][:300], err=True)
            if result.evidence.get("path_wide"):
                click.echo(
                    f"torchsmith: {path.name}: path-wide: {result.evidence['path_wide']}", err=True
                )
    except CheckError as e:
        fail(str(e))
    worst = 1 if 1 in codes else max(codes, default=0)
    if defaults and not files:
        # The built-in examples declare their expected verdicts; the demo succeeds when all hold.
        for line in unexpected:
            click.echo(f"torchsmith: {line}", err=True)
        worst = 1 if unexpected else 0
    sys.exit(worst)


@click.command()
@click.argument("file", type=click.Path(path_type=Path))
@output_option("Default: stdout.")
@check_options
def render(file: Path, output: Path | None, **kw: Any) -> None:
    """Write FILE out as a standalone script printing eager, compiled, fp64 and the verdict."""
    from torchsmith.program.render import render_script

    options = build_options(kw)
    try:
        program = load_program(file, device=options.device, scripts=False)
    except ProgramFormatError as e:
        fail(str(e))
    text = render_script(program, options)
    if output:
        output.write_text(text)
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=False)


@click.command(name="import")
@click.argument("file", type=click.Path(path_type=Path))
@output_option("Default: stdout.")
@click.option("--device", default="cpu", show_default=True)
@click.option(
    "--sites",
    is_flag=True,
    help="Also run it once in eager (in a worker) and list"
    " each compile site: its torch.compile arguments and every call's arguments.",
)
@click.option("--timeout", default=300.0, show_default=True, help="Seconds for --sites.")
def import_(file: Path, output: Path | None, device: str, sites: bool, timeout: float) -> None:
    """Convert a repro script (as pasted in PyTorch issues) to the canonical program format.

    ``check`` takes scripts as they stand; this writes the canonical program that ``reduce``,
    the troubleshooting commands and the generators work on. A script the converter cannot
    read gets one sentence naming the construct (exit 2); ``--sites`` still lists what it
    compiles and calls.
    """
    from torchsmith.check import list_sites

    error = None
    try:
        program = load_program(file, device=device, scripts=False)
    except ProgramFormatError as e:
        program, error = None, str(e)
    if program is not None:
        text = program.source if program.source.endswith("\n") else program.source + "\n"
        if program.model not in ("Model", "fn"):
            text += f"\n\nModel = {program.model}\n"
        if output:
            output.write_text(text)
            click.echo(f"wrote {output} (target {program.model})", err=True)
        else:
            click.echo(text, nl=False)
        for note in program.notes:
            click.echo(f"note: {note}", err=True)
    else:
        click.echo(f"torchsmith: cannot convert: {error}", err=True)
    if sites:
        try:
            found = list_sites(file, device=device, timeout=timeout)
        except ProgramFormatError as e:
            fail(str(e))
        for site in found["sites"]:
            kw = ", ".join(f"{k}={v}" for k, v in site["compiled_with"].items())
            click.echo(f"site {site['site']}: torch.compile({kw})", err=True)
            for i, args in enumerate(site["calls"]):
                click.echo(f"  call {i}: ({', '.join(args)})", err=True)
        if found.get("error"):
            click.echo(f"the script raised in eager: {found['error']}", err=True)
        if not found["sites"] and not found.get("error"):
            click.echo("the script calls nothing it compiles", err=True)
    if program is None:
        sys.exit(EXIT_USAGE)
