"""What the fuzz loop asks of a generator, whatever it is (graph, LLM, mutation).

A generator turns a seed into a program. It may validate candidates in eager mode through the
context (crash-safe, in a worker) and read the campaign's coverage to steer; it never executes
program code in its own process.
"""

from __future__ import annotations

import dataclasses
import importlib
import typing
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, TypeVar

from torchsmith.program.format import Program
from torchsmith.verdict import CheckResult

T = TypeVar("T")

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


@dataclasses.dataclass
class GenContext:
    """What a generator may use: an eager validity check, the campaign's coverage so far, its
    yields per family and, with coverage steering on, its family weight multipliers."""

    eager_check: Callable[[Program], CheckResult] | None = None
    coverage: Counter[str] = dataclasses.field(default_factory=Counter)
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: per generator family: (programs checked, compiler-bug findings) so far in the campaign
    yields: dict[str, tuple[int, int]] = dataclasses.field(default_factory=dict)
    #: per family: weight multiplier from compiler line coverage (torchsmith.campaign.steer)
    boost: dict[str, float] = dataclasses.field(default_factory=dict)


class Generator(Protocol):
    name: str

    def generate(self, seed: int, ctx: GenContext) -> Program | None:
        """A program for ``seed`` (None when this seed yields nothing usable)."""
        ...


#: Generator name -> "module:factory"; the factory takes keyword options and returns a Generator.
REGISTRY: dict[str, str] = {
    "export": "torchsmith.generate.export.generator:ExportGenerator",
    "graph": "torchsmith.generate.graph.generator:GraphGenerator",
    "hop": "torchsmith.generate.hop.generator:HopGenerator",
    "llm": "torchsmith.generate.llm.generator:LLMGenerator",
    "mutate": "torchsmith.generate.mutate.generator:MutationGenerator",
    "opinfo": "torchsmith.generate.opinfo.generator:OpInfoGenerator",
    "mix": "torchsmith.generate.mix:MixGenerator",
    "python": "torchsmith.generate.python.generator:PythonGenerator",
    "rewrites": "torchsmith.generate.rewrites.generator:RewritesGenerator",
    "train": "torchsmith.generate.train.generator:TrainGenerator",
}


def _coerce(value: Any, annotation: Any, name: str) -> Any:
    """A CLI string (or a value) as the field's type: int, float, bool, str, None, or a tuple
    of strings (comma-separated)."""
    if typing.get_origin(annotation) is tuple:
        if isinstance(value, str):
            return tuple(v.strip() for v in value.split(",") if v.strip())
        return tuple(value)
    if not isinstance(value, str):
        return value
    args = set(typing.get_args(annotation)) or {annotation}
    if type(None) in args and value.lower() in {"none", "null"}:
        return None
    args.discard(type(None))
    kind = next(iter(args)) if len(args) == 1 else str
    try:
        if kind is bool:
            if value.lower() in _TRUE | _FALSE:
                return value.lower() in _TRUE
            raise ValueError(value)
        if kind in (int, float):
            return kind(value)
    except ValueError:
        raise ValueError(f"option {name}: expected {kind.__name__}, got {value!r}") from None
    return value


def typed_options(cls: type[T], raw: dict[str, Any], what: str) -> T:
    """The options dataclass ``cls`` built from keyword options, CLI strings included: the one
    generator-option parser. Names may use ``-`` for ``_``; an unknown name raises
    ``ValueError`` naming the known ones (the CLI turns it into exit 2)."""
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    raw = {k.replace("-", "_"): v for k, v in raw.items()}
    unknown = sorted(set(raw) - fields)
    if unknown:
        raise ValueError(
            f"{what}: unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(fields))}"
        )
    values = {k: _coerce(v, hints[k], k) for k, v in raw.items()}
    return cls(**values)


def choose_names(
    spec: str | None, known: tuple[str, ...] | list[str], what: str, noun: str
) -> list[str]:
    """The comma-separated names in ``spec`` (all of ``known`` when empty); an unknown or an
    empty choice raises ``ValueError``: ``"<what>: unknown <noun> <names>; known: ..."``."""
    names = [n.strip() for n in (spec or ",".join(known)).split(",") if n.strip()]
    bad = [n for n in names if n not in known]
    if bad or not names:
        got = ", ".join(bad) or "(none)"
        raise ValueError(f"{what}: unknown {noun} {got}; known: {', '.join(known)}")
    return names


def _factory(name: str) -> Any:
    if name not in REGISTRY and ":" not in name:
        raise ValueError(f"unknown generator {name!r}; known: {', '.join(sorted(REGISTRY))}")
    modname, attr = REGISTRY.get(name, name).split(":", 1)
    return getattr(importlib.import_module(modname), attr)


def get_generator(name: str, **options: Any) -> Generator:
    """A generator by registry name (``graph``, ``llm``, ``mutate``) or ``package.module:factory``.

    List options come back as tuples (JSON, the campaign's store, turns tuples into lists).
    """
    options = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
    return _factory(name)(**options)


def validate_options(name: str, options: dict[str, Any]) -> None:
    """Raise ``ValueError`` (naming the valid choices) for an unknown generator or an option
    it does not take, without building the generator: a generator class states its options
    as an ``Options`` dataclass, or checks them in a static ``validate_options``. A
    ``module:factory`` generator with neither is not checked here."""
    factory = _factory(name)
    if hasattr(factory, "validate_options"):
        factory.validate_options(options)
    elif hasattr(factory, "Options"):
        typed_options(factory.Options, options, f"{name} generator")


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
