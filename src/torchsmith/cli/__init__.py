"""The command line: parses options and calls the library. One module per command family."""

from __future__ import annotations

import click

from torchsmith.cli import check, fuzz, generate, reduce, regress, troubleshoot


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="torchsmith")
def main() -> None:
    """torchsmith: finds bugs in torch.compile (Dynamo, AOTAutograd, Inductor)."""


main.add_command(check.check)
main.add_command(check.render)
main.add_command(check.import_, name="import")
main.add_command(generate.gen)
main.add_command(generate.mutate)
main.add_command(generate.gen_llm)
main.add_command(troubleshoot.explain)
main.add_command(troubleshoot.recompiles)
main.add_command(troubleshoot.debug)
main.add_command(troubleshoot.logs)
main.add_command(troubleshoot.profile)
main.add_command(troubleshoot.minify)
main.add_command(fuzz.fuzz)
main.add_command(fuzz.status)
main.add_command(reduce.reduce)
main.add_command(reduce.report)
main.add_command(regress.regress)

if __name__ == "__main__":  # pragma: no cover
    main()
