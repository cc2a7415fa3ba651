"""``--generator rewrites``: programs written to match Inductor's rewrites (optimization-directed).

Inductor's pattern-matcher passes and decompositions are a major source of compiler bugs (a
rewrite that is wrong for one dtype, layout, broadcast or keyword), yet random programs rarely
match a pattern. This family reads the rewrites the INSTALLED torch registers
(:mod:`torchsmith.generate.rewrites.catalog`: joint-graph and post-grad patterns, the
``_sfdp_pattern_N`` attention patterns, binary folding and the other freezing passes, the mkldnn
fusions, split/cat and batch fusions, the decomposition table) and, for seed ``s``, writes a
program from the template that matches one catalog entry (templates in ``templates_*``),
varying dtypes, sizes, layouts, broadcasting, keyword arguments, the training graph
(``check_options = {"grad": True}``) and the ``compile_config`` that turns the pass on
(``inductor.freezing``, fusion options).

Seed ``s`` picks the template (every template once per block of as many seeds as there are
templates, in a seeded order), then the entry and the variation from
``random.Random("torchsmith-rewrites:s:attempt")``: same seed, same bytes. Candidates are
eager-checked (``GenContext.eager_check``, else the generator's own worker); an invalid one is
replaced by the next attempt, at most ``max_tries`` times. ``Program.notes``: ``family=rewrites``,
``pattern=<entry>``, ``template=``, ``source=``, ``dtype=``, ``mode=``, and ``expect=`` /
``absent=``, the coverage features that show the rewrite fired (``bench/rewrites_fired.py``).
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import re
from collections import Counter
from collections.abc import Iterator
from typing import Any

from torchsmith.generate.family import FamilyStats, ValidatedFamily
from torchsmith.generate.rewrites.base import Template, render_spec
from torchsmith.generate.rewrites.catalog import Catalog, Entry, build_catalog
from torchsmith.generate.rewrites.templates_attn import TEMPLATES_ATTN
from torchsmith.generate.rewrites.templates_batch import TEMPLATES_BATCH
from torchsmith.generate.rewrites.templates_decomp import TEMPLATES_DECOMP
from torchsmith.generate.rewrites.templates_freeze import TEMPLATES_FREEZE
from torchsmith.generate.rewrites.templates_graph import TEMPLATES_GRAPH
from torchsmith.generate.rewrites.templates_memory import TEMPLATES_MEMORY
from torchsmith.generate.rewrites.templates_mm import TEMPLATES_MM
from torchsmith.generate.rewrites.templates_quant import TEMPLATES_QUANT
from torchsmith.program.format import Program

#: Every template, by name, in a fixed order.
TEMPLATES: dict[str, Template] = {
    t.name: t
    for t in (
        *TEMPLATES_GRAPH,
        *TEMPLATES_MM,
        *TEMPLATES_DECOMP,
        *TEMPLATES_ATTN,
        *TEMPLATES_FREEZE,
        *TEMPLATES_BATCH,
        *TEMPLATES_MEMORY,
        *TEMPLATES_QUANT,
    )
}


@dataclasses.dataclass
class RewritesOptions:
    patterns: str | None = None  # comma-separated regexes on entry or template names
    max_tries: int = 8  # candidates eager-checked per seed before giving up
    check_timeout: float = 60.0  # seconds per eager check in the generator's own worker


@dataclasses.dataclass
class RewritesStats(FamilyStats):
    """The shared figures, plus seeds asked, programs produced, per template and entry."""

    produced: int = 0
    templates_tried: Counter[str] = dataclasses.field(default_factory=Counter)
    templates_valid: Counter[str] = dataclasses.field(default_factory=Counter)
    patterns_valid: Counter[str] = dataclasses.field(default_factory=Counter)


def choices(catalog: Catalog, patterns: str | None = None) -> list[tuple[Template, list[Entry]]]:
    """The templates this torch supports, each with the catalog entries it can target, filtered
    by ``patterns`` (regexes matched against entry and template names)."""
    regexes = [re.compile(p.strip()) for p in (patterns or "").split(",") if p.strip()]
    out = []
    for tpl in TEMPLATES.values():
        entries = [catalog.entries[n] for n in tpl.entries if n in catalog.entries]
        if regexes:
            if not any(r.search(tpl.name) for r in regexes):
                entries = [e for e in entries if any(r.search(e.name) for r in regexes)]
        if entries:
            out.append((tpl, entries))
    if not out:
        raise ValueError(f"rewrites generator: no template matches {patterns!r}")
    return out


def template_for(seed: int, n: int) -> int:
    """Which of ``n`` templates seed ``seed`` uses: each once per block of ``n`` seeds."""
    order = list(range(n))
    random.Random(f"torchsmith-rewrites-block:{seed // n}").shuffle(order)
    return order[seed % n]


def _mode(config: dict[str, Any], check: dict[str, Any]) -> str:
    if check.get("grad"):
        return "grad"
    if config.get("inductor.freezing"):
        return "freezing"
    return "fusion_options" if config else "default"


def render_program(seed: int, attempt: int, table: list[tuple[Template, list[Entry]]]) -> Program:
    """The candidate program for ``seed`` and ``attempt`` (pure: no execution)."""
    tpl, entries = table[template_for(seed, len(table))]
    rng = random.Random(f"torchsmith-rewrites:{seed}:{attempt}")
    entry = rng.choice(entries)
    spec = tpl.render(rng, entry.name)
    spec.config = {**entry.config, **spec.config}
    expect = spec.expect or entry.fired_if
    absent = spec.absent or entry.fired_unless
    variant = ", ".join(f"{k}={v}" for k, v in spec.variant.items())
    header = [
        f"Generated by torchsmith rewrites: seed={seed} attempt={attempt}",
        f"pattern: {entry.name} ({entry.source}; {entry.pass_name})",
        f"template: {tpl.name}; {variant}",
    ]
    source = render_spec(spec, header, input_seed=rng.randrange(100_000))
    dtype = str(spec.variant.get("dtype", "float32"))
    notes = (
        "family=rewrites",
        f"pattern={entry.name}",
        f"op={entry.name}",
        f"template={tpl.name}",
        f"source={entry.source}",
        f"dtype={dtype}",
        f"mode={_mode(spec.config, spec.check)}",
        f"expect={'|'.join(expect)}",
        f"absent={'|'.join(absent)}",
    )
    model = "Model" if spec.module else "fn"
    return Program(source, model, f"rw_{seed}", "generated", notes=notes)


def note_of(program: Program, key: str) -> str:
    """A ``key=value`` note of ``program`` ("" when absent)."""
    for note in program.notes:
        if note.startswith(f"{key}="):
            return note.split("=", 1)[1]
    return ""


class RewritesGenerator(ValidatedFamily):
    """The ``rewrites`` generator (see the module docstring). Options as keywords or strings."""

    Options = RewritesOptions  # its options, parsed by ``typed_options``

    name = "rewrites"
    LIST_OPTIONS = ("patterns",)

    def setup(self) -> None:
        self.catalog = build_catalog()
        self.table = choices(self.catalog, self.opts.patterns)
        self.stats = RewritesStats()

    def candidates(self, seed: int) -> Iterator[Program]:
        """The programs tried for ``seed``, in order (pure: renders, runs nothing)."""
        yield from (render_program(seed, attempt, self.table) for attempt in itertools.count())

    def on_valid(self, program: Program) -> None:
        tpl = note_of(program, "template")
        self.stats.templates_tried[tpl] += 1
        self.stats.produced += 1
        self.stats.templates_valid[tpl] += 1
        self.stats.patterns_valid[note_of(program, "pattern")] += 1

    def on_invalid(self, program: Program) -> None:
        self.stats.templates_tried[note_of(program, "template")] += 1


__all__ = [
    "TEMPLATES",
    "RewritesGenerator",
    "RewritesOptions",
    "RewritesStats",
    "choices",
    "note_of",
    "render_program",
    "template_for",
]
