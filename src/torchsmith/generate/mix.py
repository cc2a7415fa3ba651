"""``--generator mix`` (the campaign default): program families mixed, weighted by what finds bugs.

Each seed goes to one family (a registered generator: ``graph``, ``opinfo``, ``python``, ...),
chosen by a seeded weighted draw, and that family generates the program; the program's name and
``notes`` say which family made it (``family=opinfo``), so the campaign records per-family
figures (programs, validity, findings, distinct bugs: ``status``). Weights start from the
``weights`` option and follow the campaign: a family's weight is multiplied by
``1 + BOOST * (its bug findings + 1) / (its programs + PRIOR)`` relative to the others, from the
yields the campaign reports in ``GenContext.yields``, and by the coverage multiplier in
``GenContext.boost`` (``fuzz --steer``: families reaching compiler lines no earlier program ran
weigh more, :mod:`torchsmith.campaign.steer`); with neither yet (or ``adaptive=False``) the draw
depends on the seed alone, so a campaign's first programs are the same every time.

A family whose generator cannot be imported (an optional dependency missing) is dropped with a
note; a family that yields nothing for a seed hands the seed to the next family in the draw. An
unknown family name, an option that is neither ``families``, ``adaptive`` nor a family's own
options (a dict under the family's name), or a family's own bad option is refused with a
``ValueError`` naming the valid ones (the CLI's exit 2): never silently ignored.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from typing import Any

from torchsmith.generate.protocol import (
    REGISTRY,
    GenContext,
    Generator,
    get_generator,
    validate_options,
)
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


#: Families a mix may not hold (they are mixes or need a user's corpus or endpoint to mean
#: anything as a default).
NOT_FAMILIES = {"mix"}


def check_mix_options(weights: dict[str, float], family_options: dict[str, Any]) -> None:
    """Refuse unknown family names and options that no family takes (``ValueError`` naming the
    valid ones). A family is a registry name or ``package.module:factory``; ``family_options``
    holds, under a family's name, the dict of that family's own options."""
    families = sorted(set(REGISTRY) - NOT_FAMILIES)
    bad = [n for n in weights if (n not in REGISTRY or n in NOT_FAMILIES) and ":" not in n]
    if bad:
        raise ValueError(f"mix: unknown families {', '.join(bad)}; known: {', '.join(families)}")
    for key, value in family_options.items():
        if key not in weights or not isinstance(value, dict):
            raise ValueError(
                f"mix: unknown option {key}={value!r}; the mix takes families=NAME=W,..,"
                f" adaptive=BOOL, and a family's own options as a dict under its name"
                f" ({', '.join(weights)})"
            )


class MixGenerator:
    """Families mixed per seed (see the module docstring)."""

    name = "mix"

    @staticmethod
    def validate_options(options: dict[str, Any]) -> None:
        """Refuse what the constructor would refuse, without building a family."""
        opts = dict(options)
        weights = parse_weights(opts.pop("families", None))
        opts.pop("adaptive", None)
        check_mix_options(weights, opts)
        for name in weights:
            validate_options(name, opts.get(name, {}))

    def __init__(
        self,
        families: str | dict[str, float] | None = None,
        adaptive: bool = True,
        **family_options: Any,
    ) -> None:
        self.weights = parse_weights(families)
        self.adaptive = adaptive if not isinstance(adaptive, str) else adaptive.lower() != "false"
        check_mix_options(self.weights, family_options)
        self.generators: dict[str, Generator] = {}
        self.skipped: dict[str, str] = {}
        for name in self.weights:
            try:
                self.generators[name] = get_generator(name, **family_options.get(name, {}))
            except ImportError as e:
                self.skipped[name] = str(e)[:200]
            except ValueError as e:
                raise ValueError(f"mix: family {name}: {e}") from None
        if not self.generators:
            raise ValueError(f"mix: no family could be built: {self.skipped}")
        self.counts: Counter[str] = Counter()

    def current_weights(self, ctx: GenContext) -> dict[str, float]:
        """The weights of this draw: the base weights, boosted by each family's bug yield and
        multiplied by its coverage boost."""
        base = {n: self.weights[n] for n in self.generators}
        yields = getattr(ctx, "yields", None) or {}
        boost = getattr(ctx, "boost", None) or {}
        if not self.adaptive or not (yields or boost):
            return base
        out = {}
        for name, w in base.items():
            programs, bugs = yields.get(name, (0, 0))
            out[name] = w * (1.0 + BOOST * (bugs + 1.0) / (programs + PRIOR)) if yields else w
            out[name] *= boost.get(name, 1.0)
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
            return dataclasses.replace(program, notes=notes)
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
