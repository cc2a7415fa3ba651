"""The graph generator behind the generator protocol (valid by construction; no eager check)."""

from __future__ import annotations

from typing import Any

from torchsmith.generate.protocol import GenContext, typed_options
from torchsmith.program.format import Program


def gen_options(**options: Any) -> Any:
    """``GenOptions`` from keyword options, accepting CLI strings (``max_nodes="20"``)."""
    from torchsmith.generate.graph.options import GenOptions

    return typed_options(GenOptions, options, "graph generator")


class GraphGenerator:
    """The ``graph`` family behind the generator protocol: ``GenOptions`` as keyword options."""

    name = "graph"

    @staticmethod
    def validate_options(options: dict[str, Any]) -> None:
        gen_options(**options)

    def __init__(self, **options: Any) -> None:
        self.options = gen_options(**options)

    def generate(self, seed: int, ctx: GenContext) -> Program | None:
        from torchsmith.generate.graph import generate

        return generate(seed, self.options)
