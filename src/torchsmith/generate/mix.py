"""``--generator mix`` (the campaign default): program families mixed, weighted by what finds bugs.

Each seed goes to one family (a registered generator: ``graph``, ``opinfo``, ``python``, ...),
chosen by a seeded weighted draw, and that family generates the program; the program's name and
``notes`` say which family made it (``family=opinfo``), so the campaign records per-family
figures (programs, validity, findings, distinct bugs: ``status``). Weights start from the
``weights`` option and follow the campaign: a family's weight is multiplied by
``1 + BOOST * (its bug findings + 1) / (its programs + PRIOR)`` relative to the others, from the
yields the campaign reports in ``GenContext.yields``; with no yields yet (or ``adaptive=False``)
the draw depends on the seed alone, so a campaign's first programs are the same every time.

A family whose generator cannot be built (an optional dependency missing) is dropped with a
note; a family that yields nothing for a seed hands the seed to the next family in the draw.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from torchsmith.generate.protocol import GenContext, Generator, get_generator
from torchsmith.program.format import Program

DEFAULT_FAMILIES = {"graph": 1.0, "opinfo": 2.0, "python": 1.5, "rewrites": 1.5}
BOOST = 20.0
PRIOR = 50.0


def parse_weights(text: str | dict[str, float] | None) -> dict[str, float]:
    """``"graph=1,opinfo=2"`` (or a dict, or a list of names) -> weights."""
    if text is None:
        return dict(DEFAULT_FAMILIES)
    if isinstance(text, dict):
        return {str(k): float(v) for k, v in text.items()}
    out: dict[str, float] = {}
    for part in str(text).replace(";", ",").split(","):
        part = part.strip()
        if not part:
            continue
        name, _, w = part.partition("=")
        out[name.strip()] = float(w) if w else 1.0
    if not out or any(w < 0 for w in out.values()):
        raise ValueError(f"mix: bad families {text!r} (e.g. graph=1,opinfo=2,python=1)")
    return out


class MixGenerator:
    """Families mixed per seed (see the module docstring)."""

    name = "mix"

    def __init__(
        self,
        families: str | dict[str, float] | None = None,
        adaptive: bool = True,
        **family_options: Any,
    ) -> None:
        self.weights = parse_weights(families)
        self.adaptive = adaptive if not isinstance(adaptive, str) else adaptive.lower() != "false"
        self.generators: dict[str, Generator] = {}
        self.skipped: dict[str, str] = {}
        for name in self.weights:
            opts = family_options.get(name) if isinstance(family_options.get(name), dict) else {}
            try:
                self.generators[name] = get_generator(name, **opts)
            except (ValueError, ImportError) as e:
                self.skipped[name] = str(e)[:200]
        if not self.generators:
            raise ValueError(f"mix: no family could be built: {self.skipped}")
        self.counts: Counter[str] = Counter()

    def current_weights(self, ctx: GenContext) -> dict[str, float]:
        """The weights of this draw: the base weights, boosted by each family's bug yield."""
        base = {n: self.weights[n] for n in self.generators}
        yields = getattr(ctx, "yields", None) or {}
        if not self.adaptive or not yields:
            return base
        out = {}
        for name, w in base.items():
            programs, bugs = yields.get(name, (0, 0))
            out[name] = w * (1.0 + BOOST * (bugs + 1.0) / (programs + PRIOR))
        return out

    def generate(self, seed: int, ctx: GenContext) -> Program | None:
        rng = random.Random(f"mix-{seed}")
        weights = self.current_weights(ctx)
        order: list[str] = []
        pool = dict(weights)
        while pool:
            name = rng.choices(list(pool), weights=list(pool.values()), k=1)[0]
            order.append(name)
            del pool[name]
        for name in order:
            program = self.generators[name].generate(seed, ctx)
            if program is None:
                continue
            self.counts[name] += 1
            notes = (
                program.notes
                if f"family={name}" in program.notes
                else (f"family={name}", *program.notes)
            )
            return Program(
                source=program.source, model=program.model, name=program.name,
                origin=program.origin, path=program.path, notes=notes,
            )  # fmt: skip
        return None

    @property
    def stats(self) -> Any:
        return _Stats(self)

    def close(self) -> None:
        for gen in self.generators.values():
            close = getattr(gen, "close", None)
            if close is not None:
                close()


class _Stats:
    def __init__(self, mix: MixGenerator) -> None:
        self.mix = mix

    def to_dict(self) -> dict[str, Any]:
        return {"families": dict(self.mix.counts), "skipped": self.mix.skipped}


def family_of(program: Program | None, default: str) -> str:
    """The family a program came from (its ``family=`` note), else ``default``."""
    if program is not None:
        for note in program.notes:
            if note.startswith("family="):
                return note.split("=", 1)[1]
    return default
