"""The command line: parses options and calls the library. One module per command family."""

from __future__ import annotations

import click

from torchsmith.cli import check as _check


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="torchsmith")
def main() -> None:
    """torchsmith: finds bugs in torch.compile (Dynamo, AOTAutograd, Inductor)."""


main.add_command(_check.check)
main.add_command(_check.render)
main.add_command(_check.import_, name="import")

if __name__ == "__main__":  # pragma: no cover
    main()
