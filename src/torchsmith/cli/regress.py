"""``regress``: re-check findings under other torch versions (other venvs) and say what changed."""

from __future__ import annotations

import json
from pathlib import Path

import click

from torchsmith.cli.common import fail, parallel_option


@click.command()
@click.argument("target", type=click.Path(exists=True, path_type=Path))
@click.option(
    "--python",
    "pythons",
    multiple=True,
    required=True,
    metavar="PY",
    help="An interpreter with another torch (a venv's bin/python); repeat for each version.",
)
@parallel_option("-j", "--jobs", help="Interpreters checked at once (one worker each).")
@click.option("--timeout", type=float, help="Seconds per worker job (default: the finding's).")
@click.option("--no-store", is_flag=True, help="Print only; do not write regress.json.")
@click.option("--json", "as_json", is_flag=True, help="The tables as JSON, one per finding.")
def regress(
    target: Path,
    pythons: tuple[str, ...],
    jobs: int,
    timeout: float | None,
    no_store: bool,
    as_json: bool,
) -> None:
    """Re-check FINDING (or each distinct bug of CAMPAIGN) under each --python.

    Every interpreter runs the finding's program with the finding's check options in a
    crash-safe worker. Prints, per finding, one row per torch version (the finding's own record
    included) and "fixed between X and Y", "regressed between X and Y" or "still live"; stores
    the table as regress.json in the finding folder, where `torchsmith report` and
    `torchsmith status --html` show it.
    """
    from torchsmith.regress import REGRESS_JSON, targets, text_lines
    from torchsmith.regress import regress as run_regress

    for py in pythons:
        if not Path(py).exists():
            fail(f"--python {py}: no such file")
    try:
        findings = targets(target)
    except (FileNotFoundError, ValueError) as e:
        fail(str(e))
    if not findings:
        fail(f"{target}: no compiler-bug findings to re-check")
    click.echo(
        f"torchsmith: re-checking {len(findings)} finding(s) under {len(pythons)} interpreter(s)",
        err=True,
    )
    tables = run_regress(
        findings,
        pythons,
        timeout=timeout,
        jobs=jobs,
        store=not no_store,
        progress=lambda line: click.echo(f"  {line}", err=True),
    )
    if as_json:
        for t in tables:
            click.echo(json.dumps(t))
        return
    for f, t in zip(findings, tables):
        what = str(f.info.readable_signature or t["signature"])
        click.echo(f"\n{f.id}: {what if len(what) <= 100 else what[:97] + '...'}")
        for line in text_lines(t):
            click.echo(f"  {line}")
    if not no_store:
        click.echo(f"\nstored as {REGRESS_JSON} in each finding folder", err=True)
