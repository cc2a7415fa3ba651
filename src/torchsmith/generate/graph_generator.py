"""The graph generator behind the generator protocol (valid by construction; no eager check)."""

from __future__ import annotations

import dataclasses
from typing import Any

from torchsmith.generate.protocol import GenContext
from torchsmith.program.format import Program


def gen_options(**options: Any) -> Any:
    """``GenOptions`` from keyword options, accepting CLI strings (``max_nodes="20"``)."""
    from torchsmith.generate import GenOptions

    fields = {f.name: f for f in dataclasses.fields(GenOptions)}
    kw: dict[str, Any] = {}
    for key, value in options.items():
        key = key.replace("-", "_")
        if key not in fields:
            raise ValueError(f"unknown graph generator option {key!r}; known: {', '.join(fields)}")
        default = fields[key].default
        if isinstance(value, str):
            if isinstance(default, bool):
                value = value.lower() in {"1", "true", "yes", "on"}
            elif isinstance(default, int):
                value = int(value)
            elif isinstance(default, tuple):
                value = tuple(v.strip() for v in value.split(",") if v.strip())
        kw[key] = value
    return GenOptions(**kw)


class GraphGenerator:
    name = "graph"

    def __init__(self, **options: Any) -> None:
        self.options = gen_options(**options)

    def generate(self, seed: int, ctx: GenContext) -> Program | None:
        from torchsmith.generate import generate

        return generate(seed, self.options)
