"""The command line: parses options and calls the library. One module per command family."""

from __future__ import annotations

import click

from torchsmith.cli import check as _check
from torchsmith.cli import fuzz as _fuzz
from torchsmith.cli import gen as _gen_graph
from torchsmith.cli import generate_cmds as _gen
from torchsmith.cli import reduce as _reduce
from torchsmith.cli import troubleshoot as _troubleshoot


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="torchsmith")
def main() -> None:
    """torchsmith: finds bugs in torch.compile (Dynamo, AOTAutograd, Inductor)."""


main.add_command(_check.check)
main.add_command(_check.render)
main.add_command(_check.import_, name="import")
main.add_command(_gen_graph.gen)
main.add_command(_troubleshoot.explain)
main.add_command(_troubleshoot.recompiles)
main.add_command(_troubleshoot.debug)
main.add_command(_fuzz.fuzz)
main.add_command(_fuzz.status)
main.add_command(_reduce.reduce)
main.add_command(_reduce.report)
main.add_command(_gen.mutate)
main.add_command(_gen.gen_llm)

if __name__ == "__main__":  # pragma: no cover
    main()
