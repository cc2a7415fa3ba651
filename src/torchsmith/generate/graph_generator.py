"""The graph generator behind the generator protocol (valid by construction; no eager check)."""

from __future__ import annotations

from typing import Any

from torchsmith.generate.protocol import GenContext
from torchsmith.program.format import Program


class GraphGenerator:
    name = "graph"

    def __init__(self, **options: Any) -> None:
        from torchsmith.generate import GenOptions

        self.options = GenOptions(**options) if options else GenOptions()

    def generate(self, seed: int, ctx: GenContext) -> Program | None:
        from torchsmith.generate import generate

        return generate(seed, self.options)
