"""Options and helpers shared by the CLI commands."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NoReturn

import click
from click.core import ParameterSource

from torchsmith.options import DTYPES, CheckOptions, parse_config_item, parse_key_value

EXIT_USAGE = 2


def fail(message: str) -> NoReturn:
    """Print ``torchsmith: message`` on stderr and exit with the usage status (2)."""
    click.echo(f"torchsmith: {message}", err=True)
    sys.exit(EXIT_USAGE)


def parse_items(items: tuple[str, ...] | list[str], what: str) -> dict[str, Any]:
    """Repeated ``KEY=VALUE`` options as a dict (tuples become lists, as JSON stores them)."""
    out: dict[str, Any] = {}
    for item in items:
        try:
            key, value = parse_key_value(item, what)
        except ValueError as e:
            fail(str(e))
        out[key] = list(value) if isinstance(value, tuple) else value
    return out


def parallel_option(*names: str, help: str) -> Any:
    """``-j/--NAME N`` (1 to 16, default 1): how many workers run at once."""
    return click.option(*names, default=1, show_default=True, type=click.IntRange(1, 16), help=help)


def emit_report(report: dict[str, Any], as_json: bool, text: Any) -> NoReturn:
    """Print a troubleshooting report (JSON, or ``text(report)``) and exit 1 when it holds an
    error, else 0."""
    import json

    click.echo(json.dumps(report) if as_json else text(report))
    sys.exit(1 if report.get("error") else 0)


def output_option(help: str) -> Any:
    """``-o/--output PATH`` with the command's own help text."""
    return click.option("-o", "--output", type=click.Path(path_type=Path), help=help)


def python_option(f: Any) -> Any:
    """``--python PY``: run the workers under another interpreter (a venv with another torch)."""
    return click.option(
        "--python",
        type=click.Path(exists=True, dir_okay=False),
        default=None,
        help="Run programs under this Python (a venv with another torch); default: this one.",
    )(f)


def check_options(f: Any) -> Any:
    """The options ``check`` shares with every command that checks programs."""
    opts = [
        click.option("--backend", default="inductor", show_default=True),
        click.option("--mode", default=None, help="torch.compile mode (inductor only)."),
        click.option("--fullgraph", is_flag=True, help="torch.compile(fullgraph=True)."),
        click.option(
            "--dynamic/--no-dynamic", default=None, help="torch.compile(dynamic=...); unset: None."
        ),
        click.option("--device", default="cpu", show_default=True),
        click.option(
            "--dtype", type=click.Choice(DTYPES), default=None, help="Cast model and inputs."
        ),
        click.option("--grad", is_flag=True, help="Also compare gradients against fp64."),
        click.option(
            "--config",
            "config_items",
            multiple=True,
            metavar="KEY=VALUE",
            help="inductor.* / dynamo.* / functorch.* config entry, repeatable.",
        ),
        click.option("--timeout", default=300.0, show_default=True, help="Seconds per worker job."),
        click.option("--memory-mb", default=8192, show_default=True, help="Worker memory cap."),
        click.option("--seed", default=0, show_default=True),
        click.option("--no-localize", is_flag=True, help="Skip the backend ladder."),
        click.option("--bisect", is_flag=True, help="Also run Inductor's CompilerBisector."),
        click.option(
            "--no-probe", is_flag=True, help="Report raw mismatches: skip the sensitivity probe."
        ),
        click.option(
            "--exact",
            is_flag=True,
            help="Judge outputs and mutated inputs bit for bit against eager (for --mode lite,"
            " which promises eager's numerics; freezing is exempt).",
        ),
    ]
    for opt in reversed(opts):
        f = opt(f)
    return f


#: click parameter of ``@check_options`` -> CheckOptions field, where the names differ.
_OPTION_FIELDS = {"config_items": "config", "no_localize": "localize", "no_probe": "probe"}


def given_option_fields(kw: dict[str, Any]) -> list[str]:
    """The CheckOptions fields whose ``@check_options`` flag was given on the command line."""
    ctx = click.get_current_context()
    given = [n for n in kw if ctx.get_parameter_source(n) == ParameterSource.COMMANDLINE]
    return [_OPTION_FIELDS.get(n, n) for n in given]


def given_params(ctx: click.Context, names: Iterable[str]) -> set[str]:
    """The parameters among ``names`` that the user gave (not defaults)."""
    out = set()
    for name in names:
        src = ctx.get_parameter_source(name)
        if src is not None and src.name not in ("DEFAULT", "DEFAULT_MAP"):
            out.add(name)
    return out


def build_options(kw: dict[str, Any]) -> CheckOptions:
    try:
        config = dict(parse_config_item(item) for item in kw.pop("config_items", ()))
        localize = not kw.pop("no_localize", False)
        probe = not kw.pop("no_probe", False)
        return CheckOptions(config=config, localize=localize, probe=probe, **kw)
    except ValueError as e:
        fail(str(e))
