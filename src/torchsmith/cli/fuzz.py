"""``fuzz`` and ``status``: long crash-safe campaigns and a look at one, running or finished."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Any

import click

from torchsmith.cli.common import (
    EXIT_USAGE,
    build_options,
    check_options,
    fail,
    given_params,
    parse_items,
    python_option,
)


def _sigterm_as_interrupt() -> None:
    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


@click.command()
@click.option(
    "--time",
    "time_",
    metavar="DURATION",
    help="Stop checking after 90s, 10m, 2h, 1d (total); queued reductions then run for a "
    "quarter of that at most (the rest stay unreduced).",
)
@click.option("--count", type=click.IntRange(min=0), help="Check this many programs (total).")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True)
@click.option(
    "--generator",
    default="mix",
    show_default=True,
    help="Registry name or mod:fn (mix: the program families, weighted by bug yield).",
)
@click.option("--gen-option", multiple=True, metavar="KEY=VALUE", help="Generator option.")
@click.option("--out", type=click.Path(path_type=Path), help="Campaign folder (new).")
@click.option("--resume", type=click.Path(path_type=Path), help="Continue the campaign in DIR.")
@click.option("--known", type=click.Path(path_type=Path), help="Known signatures, one a line.")
@click.option(
    "--reduce/--no-reduce",
    default=True,
    show_default=True,
    help="Reduce each new bug in the background and merge bugs whose reduced forms sign alike.",
)
@click.option("--reduce-time", default=60.0, show_default=True, help="Seconds per reduction.")
@click.option("--json", "as_json", is_flag=True, help="Print the final summary as JSON.")
@click.option("--progress-interval", default=30.0, show_default=True, help="Plain-line period.")
@click.option(
    "--pack",
    type=click.IntRange(1, 32),
    default=8,
    show_default=True,
    help="Programs checked per compile (plain generated programs; 8 measured 2.3x the"
    " programs/min of 1 over 300 s, same verdicts; 16 only 5% more: notes/campaign.md).",
)
@click.option(
    "--ray",
    metavar="ADDRESS",
    default=None,
    help="Workers as Ray actors: auto (the running cluster), host:port, or local.",
)
@click.option(
    "--config-space",
    metavar="default|FILE",
    help="Check half the programs under 1-4 sampled non-default settings (the curated table,"
    " or a JSON/TOML table: notes/config-space.md); failures are bisected to the settings"
    " they need.",
)
@click.option(
    "--inductor-cache-mb",
    type=click.FloatRange(min=0),
    default=4096.0,
    show_default=True,
    help="Inductor's compiled-kernel cache of the workers, in all (a folder per worker in DIR,"
    " emptied past its share); 0: Inductor's machine-wide folder, unbounded.",
)
@click.option(
    "--coverage-every",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Measure Dynamo/AOTAutograd/Inductor line coverage of every N-th seed's program"
    " (one more compile each; DIR/lines.jsonl); 0: off.",
)
@click.option(
    "--steer/--no-steer",
    default=False,
    show_default=True,
    help="Steer the mix's family weights toward families reaching compiler lines no earlier"
    " program ran (measures coverage every 4th seed unless --coverage-every says otherwise).",
)
@click.option(
    "--avoid-repeats/--no-avoid-repeats",
    default=False,
    show_default=True,
    help="Check fewer programs whose features (generator notes, their pairs, ops) mostly led"
    " to causes the campaign already has; the others are recorded as avoided (DIR/avoid.jsonl).",
)
@click.option("--ray-cpus", default=1.0, show_default=True, help="CPUs per Ray actor.")
@click.option("--ray-gpus", default=0.0, show_default=True, help="GPUs per Ray actor.")
@python_option
@check_options
@click.pass_context
def fuzz(
    ctx: click.Context,
    time_: str | None,
    count: int | None,
    jobs: int,
    generator: str,
    gen_option: tuple[str, ...],
    out: Path | None,
    resume: Path | None,
    known: Path | None,
    reduce: bool,
    reduce_time: float,
    as_json: bool,
    progress_interval: float,
    pack: int,
    ray: str | None,
    ray_cpus: float,
    ray_gpus: float,
    config_space: str | None,
    inductor_cache_mb: float,
    coverage_every: int,
    steer: bool,
    avoid_repeats: bool,
    python: str | None,
    **kw: Any,
) -> None:
    """Generate programs and check them, for --count programs or --time, until Ctrl-C.

    Program i is generated from seed --seed + i. Each compiler bug is localized, stored in
    DIR/campaign.db and written to DIR/findings/<id>/; findings with one signature form one bug.
    A campaign killed at any moment continues with --resume DIR. Exit status: 0 no new bugs
    (bugs listed in --known do not count), 1 new bugs, 2 usage error or failed campaign,
    130 interrupted.
    """
    from torchsmith.campaign.config import CampaignConfig, CampaignError
    from torchsmith.campaign.loop import Campaign
    from torchsmith.campaign.store import DB_NAME
    from torchsmith.options import parse_duration
    from torchsmith.report.progress import make_progress, print_summary, summary_console

    values: dict[str, Any] = {
        "seed": kw.pop("seed"),
        "count": count,
        "jobs": jobs,
        "generator": generator,
        "gen_option": parse_items(gen_option, "--gen-option"),
        "known": str(known) if known else None,
        "reduce": reduce,
        "reduce_time": reduce_time,
        "python": python,
        "ray": ray,
        "ray_cpus": ray_cpus,
        "ray_gpus": ray_gpus,
        "pack": pack,
        "config_space": config_space,
        "inductor_cache_mb": inductor_cache_mb,
        "coverage_every": coverage_every,
        "steer": steer,
        "avoid_repeats": avoid_repeats,
    }
    try:
        values["time_"] = parse_duration(time_) if time_ is not None else None
        options_given = bool(given_params(ctx, kw))
        given = given_params(ctx, values)
        config = CampaignConfig.from_cli(
            values, given, build_options(kw), options_given, out=out, resume=resume
        )
    except (CampaignError, ValueError) as e:
        fail(str(e))
    _sigterm_as_interrupt()
    progress = make_progress(progress_interval, quiet=as_json)
    console = summary_console(stderr=as_json)
    interrupted = False
    summary: dict[str, Any] | None = None
    click.echo(f"torchsmith: campaign {config.out} (seed {config.seed})", err=True)
    try:
        with progress:
            campaign = Campaign(config, progress=progress, resume=resume is not None)
            try:
                summary = campaign.run()
            except KeyboardInterrupt:
                interrupted = True
    except (CampaignError, ValueError) as e:
        click.echo(f"torchsmith: {e}", err=True)
        if resume is None and (config.out / DB_NAME).exists():
            click.echo(f"torchsmith: continue with --resume {config.out}", err=True)
        sys.exit(EXIT_USAGE)
    if summary is None:
        summary = _read_summary(config.out, config.known_file)
    if as_json:
        click.echo(json.dumps(summary, default=str))
    else:
        print_summary(summary, console)
    if interrupted:
        click.echo(f"torchsmith: interrupted; continue with --resume {config.out}", err=True)
        sys.exit(130)
    if summary["state"] == "stopped" and config.time_budget is not None:
        click.echo(
            f"torchsmith: time is up; go on with --resume {config.out} --time LONGER", err=True
        )
    new_bugs = [b for b in summary["bug_list"] if not b["known"] and not b.get("path_wide")]
    sys.exit(1 if new_bugs else 0)


def _read_summary(folder: Path, known_file: str | None) -> dict[str, Any]:
    from torchsmith.campaign.store import Store
    from torchsmith.campaign.summary import summarize
    from torchsmith.dedup import load_known

    known = load_known(known_file) if known_file and Path(known_file).exists() else None
    with Store(folder, readonly=True) as store:
        return summarize(store, known)


@click.command()
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--known", type=click.Path(exists=True, path_type=Path), help="Re-mark known bugs.")
@click.option("--json", "as_json", is_flag=True, help="The summary as JSON.")
@click.option("--repair", is_flag=True, help="Salvage a damaged campaign.db (kept aside).")
@click.option(
    "--html",
    "html_out",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[OUT]",
    help="Also write the campaign page (plots, bugs, version tables); default FOLDER/campaign.html.",
)
def status(
    folder: Path, known: Path | None, as_json: bool, repair: bool, html_out: str | None
) -> None:
    """Show the campaign in FOLDER, running or finished (reads campaign.db read-only).

    --html [OUT] also writes one self-contained page (opens from disk): settings, versions,
    plots, and each distinct bug with its repro, version table and pt2 report.

    A damaged database (a disk filled up, a file truncated by hand) is said so in one line;
    --repair keeps it aside as campaign.db.damaged-<time> and copies every row that still
    reads into a new one: seeds whose rows are lost are checked again by fuzz --resume.
    """
    from torchsmith.campaign.repair import repair_store, store_damage
    from torchsmith.campaign.store import DB_NAME
    from torchsmith.report.progress import print_summary, summary_console

    if not (folder / DB_NAME).exists():
        fail(f"{folder}: no {DB_NAME} (not a campaign folder)")
    if repair:
        done = repair_store(folder)
        if not done["repaired"]:
            click.echo(f"{folder}: {DB_NAME} is intact; nothing to repair", err=True)
        else:
            kept = ", ".join(f"{k} {v}" for k, v in done["kept"].items())
            lost = sum(done["unreadable"].values())
            click.echo(
                f"repaired {folder}: kept {kept}; {lost} unreadable rows;"
                f" the damaged file is {done['moved_to']}",
                err=True,
            )
    elif (damage := store_damage(folder)) is not None:
        fail(
            f"the campaign database is damaged ({damage}); salvage it with:"
            f" torchsmith status {folder} --repair"
        )
    try:
        summary = _read_summary(folder, str(known) if known else None)
    except Exception as e:  # a locked or damaged database: say so, not a traceback
        fail(f"{folder}: cannot read the campaign: {e}")
    if not known:  # the list the campaign was started with, if it is still there
        kf = summary["params"].get("known_file")
        if kf and Path(kf).exists():
            summary = _read_summary(folder, kf)
    if html_out is not None:
        _write_page(folder, html_out, summary["params"].get("known_file") if not known else known)
    if as_json:
        click.echo(json.dumps(summary, default=str))
        return
    console = summary_console()
    print_summary(summary, console)
    p = summary["params"]
    budget = []
    if p.get("count") is not None:
        budget.append(f"count {p['count']}")
    if p.get("time_budget") is not None:
        budget.append(f"time {p['time_budget']:g}s")
    console.print(
        f"generator {p.get('generator')} (seed {p.get('seed')}), {p.get('jobs')} jobs"
        + (f", {', '.join(budget)}" if budget else ""),
        highlight=False,
        markup=False,
    )
    if summary["state"] in ("killed", "interrupted", "stopped"):
        console.print(f"continue with: torchsmith fuzz --resume {folder}", markup=False)


def _write_page(folder: Path, out: str, known_file: str | Path | None) -> None:
    from torchsmith.dedup import load_known
    from torchsmith.report.page import write_page

    known = load_known(known_file) if known_file and Path(known_file).exists() else None
    try:
        path = write_page(folder, Path(out) if out else None, known=known)
    except OSError as e:
        fail(f"cannot write the campaign page: {e}")
    click.echo(f"wrote {path}", err=True)
