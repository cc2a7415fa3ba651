"""``gen``: write random programs, valid by construction, in the canonical format."""

from __future__ import annotations

from pathlib import Path

import click

from torchsmith.cli.common import _fail


@click.command()
@click.option("--seed", default=0, show_default=True, help="Seed of the first program.")
@click.option("-n", "count", default=10, show_default=True, help="How many programs.")
@click.option(
    "-o", "--out", type=click.Path(path_type=Path), default=Path("programs"), show_default=True
)
@click.option("--max-nodes", default=10, show_default=True, help="Ops per program at most.")
@click.option("--ops", default=None, help="Op filter: names, globs or regexes, comma-separated.")
@click.option("--dtypes", default=None, help="Comma-separated dtypes for inputs and casts.")
@click.option("--edge-values", is_flag=True, help="Zeros, inf, NaN, denormals, empty dims.")
def gen(
    seed: int,
    count: int,
    out: Path,
    max_nodes: int,
    ops: str | None,
    dtypes: str | None,
    edge_values: bool,
) -> None:
    """Write N generated programs gen_<seed+i>.py to OUT (same seed, same bytes)."""
    from torchsmith.generate import write_programs
    from torchsmith.generate.graph_generator import gen_options

    kw: dict[str, object] = {"max_nodes": max_nodes, "edge_values": edge_values}
    if ops:
        kw["ops"] = ops
    if dtypes:
        kw["dtypes"] = dtypes
    try:
        options = gen_options(**kw)
        paths = write_programs(seed, count, out, options)
    except ValueError as e:
        _fail(str(e))
        return
    click.echo(
        f"wrote {len(paths)} programs to {out}/ (gen_{seed}.py .. gen_{seed + count - 1}.py)"
    )
