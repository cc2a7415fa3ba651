"""What the fuzz loop asks of a generator, whatever it is (graph, LLM, mutation).

A generator turns a seed into a program. It may validate candidates in eager mode through the
context (crash-safe, in a worker) and read the campaign's coverage to steer; it never executes
program code in its own process.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from torchsmith.program.format import Program
from torchsmith.verdict import CheckResult


@dataclasses.dataclass
class GenContext:
    """What a generator may use: an eager validity check, the campaign's coverage so far and
    its yields per family."""

    eager_check: Callable[[Program], CheckResult] | None = None
    coverage: Counter[str] = dataclasses.field(default_factory=Counter)
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: per generator family: (programs checked, compiler-bug findings) so far in the campaign
    yields: dict[str, tuple[int, int]] = dataclasses.field(default_factory=dict)


class Generator(Protocol):
    name: str

    def generate(self, seed: int, ctx: GenContext) -> Program | None:
        """A program for ``seed`` (None when this seed yields nothing usable)."""
        ...


#: Generator name -> "module:factory"; the factory takes keyword options and returns a Generator.
REGISTRY: dict[str, str] = {
    "graph": "torchsmith.generate.graph_generator:GraphGenerator",
    "llm": "torchsmith.generate.llm:LLMGenerator",
    "mutate": "torchsmith.generate.mutate:MutationGenerator",
    "opinfo": "torchsmith.generate.opinfo:OpInfoGenerator",
    "mix": "torchsmith.generate.mix:MixGenerator",
    "python": "torchsmith.generate.pyprog:PythonGenerator",
    "rewrites": "torchsmith.generate.rewrites:RewritesGenerator",
}


def get_generator(name: str, **options: Any) -> Generator:
    """A generator by registry name (``graph``, ``llm``, ``mutate``) or ``package.module:factory``.

    List options come back as tuples (JSON, the campaign's store, turns tuples into lists).
    """
    options = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
    if name not in REGISTRY and ":" not in name:
        raise ValueError(f"unknown generator {name!r}; known: {', '.join(sorted(REGISTRY))}")
    modname, attr = REGISTRY.get(name, name).split(":", 1)
    factory = getattr(importlib.import_module(modname), attr)
    return factory(**options)


def write_generated(
    gen: Generator,
    seed: int,
    n: int,
    out: Path,
    ctx: GenContext | None = None,
    log: Callable[[str], None] = lambda line: None,
) -> list[Path]:
    """Write the programs of seeds ``seed .. seed+n-1`` to ``out/<name>.py``; a seed that yields
    nothing is logged and skipped. Returns the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    ctx = ctx or GenContext()
    paths: list[Path] = []
    for s in range(seed, seed + n):
        program = gen.generate(s, ctx)
        if program is None:
            log(f"seed {s}: no valid program")
            continue
        path = out / f"{program.name}.py"
        path.write_text(program.source)
        paths.append(path)
        log(f"wrote {path}")
    return paths
