"""``reduce`` and ``report``: a minimal repro that fails the same way, and the issue text."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from torchsmith.cli.common import (
    EXIT_USAGE,
    build_options,
    check_options,
    fail,
    given_option_fields,
    output_option,
    parallel_option,
)


@click.command()
@click.argument("target", type=click.Path(path_type=Path))
@output_option(
    "Write the standalone repro script here (default for FILE: <name>_reduced_repro.py next"
    " to it; a FINDING_DIR gets a reduced finding folder with its repro.py)."
)
@parallel_option("-j", "--workers", help="Crash-safe workers testing candidates in parallel.")
@click.option("--time-budget", default=300.0, show_default=True, help="Seconds of search.")
@click.option("--no-generic", is_flag=True, help="Skip the final pysource-minimize pass.")
@click.option("--no-verify", is_flag=True, help="Do not run the written script alone at the end.")
@click.option("-v", "--verbose", is_flag=True, help="Print every candidate tested.")
@check_options
def reduce(
    target: Path,
    output: Path | None,
    workers: int,
    time_budget: float,
    no_generic: bool,
    no_verify: bool,
    verbose: bool,
    **kw: Any,
) -> None:
    """Shrink FILE or FINDING_DIR at the source level while it fails the same way.

    Same verdict, same stage, same failure (a crash keeps its exception type and message, a
    mismatch stays a same()-with-fp64 failure). A FINDING_DIR is reduced with the options it was
    found with (check options given here override them) and the reduced finding is written next
    to it. Exit status: 0 a smaller repro was written, 1 nothing smaller fails the same way, 2 the
    failure does not reproduce or the input cannot be read.
    """
    from torchsmith.finding import read_finding
    from torchsmith.program.format import ProgramFormatError
    from torchsmith.program.load import load_program
    from torchsmith.reduce import finding_options, reduce_program, write_reduced, write_repro

    finding = None
    if target.is_dir() and (target / "meta.json").exists():
        finding = read_finding(target)
        given = given_option_fields(kw)
        options = finding_options(finding).overridden_by(build_options(dict(kw)), given)
        program, known = finding.program, finding.result
    else:
        options = build_options(kw)
        try:
            program = load_program(target, device=options.device, scripts=False)
        except ProgramFormatError as e:
            fail(str(e))
        known = None

    def log(line: str) -> None:
        if verbose or not line.startswith(("no ", "ok ")):
            click.echo(line, err=True)

    res = reduce_program(
        program,
        options,
        workers=workers,
        time_budget=time_budget,
        result=known,
        generic=not no_generic,
        verify_script=not no_verify,
        log=log,
    )
    if not res.reproduced:
        click.echo(f"torchsmith: {res.error}", err=True)
        sys.exit(EXIT_USAGE)
    s = res.summary()
    click.echo(
        f"{s['target']}: forward {res.forward_before} -> {res.forward_after} statements,"
        f" {s['lines'][0]} -> {s['lines'][1]} lines, {s['tested']} candidates in {s['seconds']} s"
        f" ({workers} worker{'s' if workers > 1 else ''})"
        + (
            f", script reproduces alone: {res.script_reproduces}"
            if res.script_reproduces is not None
            else ""
        ),
        err=True,
    )
    if not res.confirmed:
        click.echo(f"torchsmith: {res.error}", err=True)
    if finding is not None:
        new = write_reduced(finding, res)
        if new is not None:
            click.echo(f"wrote {new.folder}", err=True)
    if res.progress and res.confirmed:
        out = output
        if out is None and finding is None:
            out = target.parent / f"{program.name}_reduced_repro.py"
        if out is not None:
            click.echo(f"wrote {write_repro(res, options, out)}", err=True)
        click.echo(res.reduced.source, nl=False)
        sys.exit(0)
    click.echo("torchsmith: nothing smaller fails the same way", err=True)
    sys.exit(1)


@click.command()
@click.argument("finding_dir", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option("--html", is_flag=True, help="Also write report.html.")
@click.option("--print", "to_stdout", is_flag=True, help="Also print the Markdown.")
def report(finding_dir: Path, html: bool, to_stdout: bool) -> None:
    """Write FINDING_DIR/report.md: the finding as a PyTorch pt2 bug report.

    Title in PyTorch's style, description, the minimal repro (the reduced finding when there is
    one), ablation over the backend ladder, the Inductor bisect result, the fuzzer checklist
    checked against meta.json, error logs and collect_env versions.
    """
    from torchsmith.report.markdown import write_report

    try:
        paths = write_report(finding_dir, html=html)
    except (FileNotFoundError, ValueError) as e:
        fail(str(e))
    for p in paths:
        click.echo(f"wrote {p}", err=True)
    if to_stdout:
        click.echo(paths[0].read_text(), nl=False)
