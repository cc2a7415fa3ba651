"""``gen``, ``mutate`` and ``gen-llm``: write programs to a folder without running a campaign.

``gen`` writes graph-generator programs (valid by construction, byte-stable per seed);
``mutate`` and ``gen-llm`` write the eager-valid programs of the mutation and LLM generators
(``torchsmith fuzz --generator mutate|llm`` generates and checks in one go).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from torchsmith.cli.common import fail, parse_items


def _write(gen: Any, seed: int, n: int, out: Path, as_json: bool) -> None:
    from torchsmith.generate.protocol import write_generated

    try:
        paths = write_generated(gen, seed, n, out, log=lambda line: click.echo(line, err=True))
    finally:
        gen.close()
    stats = gen.stats.to_dict()
    if as_json:
        click.echo(json.dumps({"written": len(paths), "stats": stats}, default=str))
    else:
        keys = [k for k in stats if not isinstance(stats[k], dict)]
        click.echo(
            f"{len(paths)}/{n} programs in {out}; " + ", ".join(f"{k}={stats[k]}" for k in keys)
        )


@click.command()
@click.option("--seed", default=0, show_default=True, help="Seed of the first program.")
@click.option("-n", "count", default=10, show_default=True, help="How many programs.")
@click.option(
    "-o", "--out", type=click.Path(path_type=Path), default=Path("programs"), show_default=True
)
@click.option("--max-nodes", default=10, show_default=True, help="Ops per program at most.")
@click.option("--ops", default=None, help="Op filter: names, globs or regexes, comma-separated.")
@click.option("--dtypes", default=None, help="Comma-separated dtypes for inputs and casts.")
@click.option("--edge-values", is_flag=True, help="Same as --values edge.")
@click.option(
    "--values",
    type=click.Choice(["mixed", "edge", "plain", "wild"]),
    default="mixed",
    show_default=True,
    help="Edge values (policy's BUG side): a share of the seeds, all, none; wild: the old blanket mode.",
)
def gen(
    seed: int,
    count: int,
    out: Path,
    max_nodes: int,
    ops: str | None,
    dtypes: str | None,
    edge_values: bool,
    values: str,
) -> None:
    """Write N generated programs gen_<seed+i>.py to OUT (same seed, same bytes)."""
    from torchsmith.generate.graph import write_programs
    from torchsmith.generate.graph.generator import gen_options

    kw: dict[str, object] = {"max_nodes": max_nodes, "values": "edge" if edge_values else values}
    if ops:
        kw["ops"] = ops
    if dtypes:
        kw["dtypes"] = dtypes
    try:
        options = gen_options(**kw)
        paths = write_programs(seed, count, out, options)
    except ValueError as e:
        fail(str(e))
    click.echo(
        f"wrote {len(paths)} programs to {out}/ (gen_{seed}.py .. gen_{seed + count - 1}.py)"
    )


@click.command()
@click.argument("corpus", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("-n", "count", default=10, show_default=True, help="Seeds to try.")
@click.option("--seed", default=0, show_default=True, help="First seed.")
@click.option("-o", "--out", type=click.Path(path_type=Path), default=Path("mutants"))
@click.option("--operators", default=None, help="Comma-separated mutation operators.")
@click.option("--max-tries", default=8, show_default=True, help="Mutants checked per seed.")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
def mutate(
    corpus: tuple[Path, ...],
    count: int,
    seed: int,
    out: Path,
    operators: str | None,
    max_tries: int,
    as_json: bool,
) -> None:
    """Mutate programs in CORPUS (files or folders; default: built-in examples and generated
    programs) and write the eager-valid mutants to OUT, one per seed."""
    from torchsmith.generate.mutate.generator import MutationGenerator

    opts: dict[str, Any] = {"max_tries": max_tries, "operators": operators}
    if corpus:
        opts["corpus"] = ",".join(str(p) for p in corpus)
    try:
        gen = MutationGenerator(**opts)
    except ValueError as e:
        fail(str(e))
    _write(gen, seed, count, out, as_json)


@click.command(name="gen-llm")
@click.option("--base-url", envvar="OPENAI_BASE_URL", help="OpenAI-compatible endpoint (/v1).")
@click.option("--model", default=None, help="Default: the first model the endpoint lists.")
@click.option("--api-key-env", default="OPENAI_API_KEY", show_default=True)
@click.option("-n", "count", default=5, show_default=True, help="Programs to ask for.")
@click.option("--seed", default=0, show_default=True, help="First seed.")
@click.option("-o", "--out", type=click.Path(path_type=Path), default=Path("llm-programs"))
@click.option("--gen-option", "gen_options", multiple=True, metavar="KEY=VALUE")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
def gen_llm(
    base_url: str | None,
    model: str | None,
    api_key_env: str,
    count: int,
    seed: int,
    out: Path,
    gen_options: tuple[str, ...],
    as_json: bool,
) -> None:
    """Ask a language model for programs (repaired until valid in eager) and write them to OUT."""
    from torchsmith.generate.llm.generator import LLMEndpointError, LLMGenerator

    opts: dict[str, Any] = {"base_url": base_url, "model": model, "api_key_env": api_key_env}
    opts.update(parse_items(gen_options, "--gen-option"))
    try:
        gen = LLMGenerator(**opts)
        _write(gen, seed, count, out, as_json)
    except (ValueError, LLMEndpointError) as e:
        fail(str(e))
