"""``mutate`` and ``gen-llm``: write eager-valid programs from the mutation or LLM generator to a
folder, without running a campaign (``torchsmith fuzz --generator mutate|llm`` does both)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from torchsmith.cli.common import _fail


def _write(gen: Any, seed: int, n: int, out: Path, as_json: bool) -> None:
    from torchsmith.generate.protocol import GenContext

    out.mkdir(parents=True, exist_ok=True)
    ctx = GenContext()
    written = 0
    try:
        for s in range(seed, seed + n):
            prog = gen.generate(s, ctx)
            if prog is None:
                click.echo(f"seed {s}: no valid program", err=True)
                continue
            path = out / f"{prog.name}.py"
            path.write_text(prog.source)
            written += 1
            click.echo(f"wrote {path}", err=True)
    finally:
        gen.close()
    stats = gen.stats.to_dict()
    if as_json:
        click.echo(json.dumps({"written": written, "stats": stats}, default=str))
    else:
        keys = [k for k in stats if not isinstance(stats[k], dict)]
        click.echo(
            f"{written}/{n} programs in {out}; " + ", ".join(f"{k}={stats[k]}" for k in keys)
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
    from torchsmith.generate.mutate import MutationGenerator

    opts: dict[str, Any] = {"max_tries": max_tries, "operators": operators}
    if corpus:
        opts["corpus"] = ",".join(str(p) for p in corpus)
    try:
        gen = MutationGenerator(**opts)
    except ValueError as e:
        _fail(str(e))
        return
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
    from torchsmith.generate.llm import LLMEndpointError, LLMGenerator

    opts: dict[str, Any] = {"base_url": base_url, "model": model, "api_key_env": api_key_env}
    for item in gen_options:
        if "=" not in item:
            _fail(f"--gen-option expects KEY=VALUE, got {item!r}")
        key, value = item.split("=", 1)
        opts[key.strip()] = value.strip()
    try:
        gen = LLMGenerator(**opts)
        _write(gen, seed, count, out, as_json)
    except (ValueError, LLMEndpointError) as e:
        _fail(str(e))
