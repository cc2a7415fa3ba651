"""``--generator python``: programs whose risk is in what Dynamo must trace and guard.

For seed ``s`` the generator composes a function program (sometimes an ``nn.Module``) from a
library of fragments (``frags_control``, ``frags_functions``, ``frags_effects``): control flow
on shapes and on exact values, loops over ranges, lists, tuples and dicts, comprehensions and
generators, ``torch.Size`` arithmetic, ``.item()``/``.tolist()``, ``math`` on Python floats,
string/bool/dtype arguments, closures, ``functools.partial``, named tuples and dataclasses,
``getattr`` defaults, try/except, deliberate graph breaks, side effects on globals, in-place
updates of inputs and their views, aliased inputs and outputs. With ``sequence_prob`` it is a
call sequence (``get_calls()``, 2-3 calls) where Python scalars change value or type, the batch
size or dtype changes, and ``before_call`` changes a global, a class attribute or a module
attribute between calls.

Every choice comes from ``random.Random`` seeded by the seed and the attempt (same seed, same
bytes). Candidates are eager-checked (``GenContext.eager_check``, else the generator's own
worker) and an invalid one is replaced by the next attempt, at most ``max_tries`` times.
``Program.notes`` names the fragments used (``frag:<name>``) and the features (``feat:<name>``).
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from torchsmith.generate.family import FamilyStats, ValidatedFamily
from torchsmith.generate.python.builder import Builder, Fragment
from torchsmith.generate.python.frags_control import FRAGMENTS_1
from torchsmith.generate.python.frags_effects import FRAGMENTS_3
from torchsmith.generate.python.frags_functions import FRAGMENTS_2
from torchsmith.generate.python.frags_runtime import FRAGMENTS_5
from torchsmith.generate.python.frags_stdlib import FRAGMENTS_4
from torchsmith.program.format import Program

#: Every fragment by name, in a fixed order.
FRAGMENTS: dict[str, Fragment] = {
    f.name: f for f in (*FRAGMENTS_1, *FRAGMENTS_2, *FRAGMENTS_3, *FRAGMENTS_4, *FRAGMENTS_5)
}
MAX_PER_FRAGMENT = 2


@dataclasses.dataclass
class PyProgOptions:
    fragments: str | None = None  # comma-separated fragment names (default: all)
    max_fragments: int = 5  # fragments composed into one program (at least min_fragments)
    min_fragments: int = 2
    sequence_prob: float = 0.5  # a call sequence (get_calls, 2-3 calls) rather than one call
    module_prob: float = 0.25  # an nn.Module rather than a function
    max_tries: int = 8  # candidates eager-checked per seed before giving up
    check_timeout: float = 60.0  # seconds per eager check in the generator's own worker


@dataclasses.dataclass
class PyProgStats(FamilyStats):
    """What the generator did: seeds asked, candidates tried, valid ones, per fragment."""

    produced: int = 0  # seeds that gave a valid program
    fragments_tried: Counter[str] = dataclasses.field(default_factory=Counter)
    fragments_valid: Counter[str] = dataclasses.field(default_factory=Counter)
    features: Counter[str] = dataclasses.field(default_factory=Counter)


def _parse_fragments(spec: str | tuple[str, ...] | list[str] | None) -> list[str]:
    if not spec:
        return list(FRAGMENTS)
    names = spec.split(",") if isinstance(spec, str) else list(spec)
    names = [n.strip() for n in names if n.strip()]
    bad = [n for n in names if n not in FRAGMENTS]
    if bad:
        raise ValueError(
            f"python generator: unknown fragment(s) {', '.join(bad)}; known: {', '.join(FRAGMENTS)}"
        )
    return names


def compose(
    rng: random.Random,
    names: list[str],
    *,
    min_fragments: int = 2,
    max_fragments: int = 5,
    sequence_prob: float = 0.5,
    module_prob: float = 0.25,
) -> Builder:
    """A builder filled with fragments drawn from ``names`` (pure: draws from ``rng`` only)."""
    allowed = [FRAGMENTS[n] for n in names]
    wheres = {f.where for f in allowed}
    module = rng.random() < module_prob
    if wheres == {"module"} or wheres == {"function"}:
        module = wheres == {"module"}
    allowed = [f for f in allowed if f.where in ("any", "module" if module else "function")]
    ncalls = rng.choice((2, 3, 3)) if rng.random() < sequence_prob else 1
    rank = rng.choice((2, 2, 3))
    rest = [rng.choice((2, 3, 4, 4, 6, 8))] if rank == 2 else [rng.choice((2, 3, 4)) for _ in "ab"]
    batch = [rng.randint(2, 5)]
    varying_batch = ncalls > 1 and rng.random() < 0.4
    for _ in range(ncalls - 1):
        batch.append(
            rng.choice([v for v in range(2, 8) if v != batch[-1]]) if varying_batch else batch[0]
        )
    dtypes = ["float32"] * ncalls
    if ncalls > 1 and not module and rng.random() < 0.15:
        dtypes[rng.randrange(1, ncalls)] = "float64"
    b = Builder(
        rng, module=module, batch=batch, rest=rest, dtypes=dtypes, input_seed=rng.randrange(10_000)
    )
    b.feature("module" if module else "function")
    if varying_batch:
        b.feature("seq:shape")
    if "float64" in dtypes:
        b.feature("seq:dtype")
    used: Counter[str] = Counter()
    for _ in range(rng.randint(min_fragments, max(min_fragments, max_fragments))):
        fits = [f for f in allowed if used[f.name] < MAX_PER_FRAGMENT and f.ok(b)]
        if not fits:
            break
        weights = [f.weight / (1 + used[f.name]) for f in fits]
        frag = rng.choices(fits, weights=weights, k=1)[0]
        frag.apply(b)
        used[frag.name] += 1
        b.fragments.append(frag.name)
        if not frag.fullgraph:
            b.fullgraph_safe = False
    return b


def compile_settings(b: Builder, rng: random.Random) -> tuple[dict[str, Any], dict[str, Any]]:
    """The program's declared ``compile_kwargs`` and ``compile_config`` (literals)."""
    kwargs: dict[str, Any] = {}
    r = rng.random()
    if r < 0.2:
        kwargs["dynamic"] = True
    elif r < 0.3:
        kwargs["dynamic"] = False
    if b.fullgraph_safe and rng.random() < 0.3:
        kwargs["fullgraph"] = True
    config = dict(b.config)
    r = rng.random()
    if r < 0.08:
        config["dynamo.automatic_dynamic_shapes"] = False
    elif r < 0.14:
        config["dynamo.specialize_float"] = True
    elif r < 0.18:
        config["dynamo.assume_static_by_default"] = False
    return kwargs, dict(sorted(config.items()))


def render_program(seed: int, attempt: int, options: PyProgOptions, names: list[str]) -> Program:
    """The candidate program for ``seed`` and ``attempt`` (pure: no execution)."""
    rng = random.Random(f"torchsmith-python:{seed}:{attempt}")
    b = compose(
        rng,
        names,
        min_fragments=options.min_fragments,
        max_fragments=options.max_fragments,
        sequence_prob=options.sequence_prob,
        module_prob=options.module_prob,
    )
    kwargs, config = compile_settings(b, rng)
    if kwargs.get("fullgraph"):
        b.feature("fullgraph")
    features = list(b.features)
    header = [
        f"Generated by torchsmith python: seed={seed} attempt={attempt}",
        f"fragments: {', '.join(b.fragments)}",
        f"features: {', '.join(features)}",
    ]
    source = b.render(header, kwargs, config)
    notes = ("family=python", *(f"frag:{n}" for n in b.fragments), *(f"feat:{f}" for f in features))
    model = "Model" if b.module else "fn"
    return Program(source, model, f"py_{seed}", "generated", notes=notes)


def fragments_of(program: Program) -> list[str]:
    """The fragment names a program's notes record (repeats included)."""
    return [n[5:] for n in program.notes if n.startswith("frag:")]


def features_of(program: Program) -> list[str]:
    return [n[5:] for n in program.notes if n.startswith("feat:")]


class PythonGenerator(ValidatedFamily):
    """The ``python`` generator (see the module docstring). Options as keywords or CLI strings."""

    Options = PyProgOptions  # its options, parsed by ``typed_options``

    name = "python"
    LIST_OPTIONS = ("fragments",)

    def setup(self) -> None:
        self.names = _parse_fragments(self.opts.fragments)
        if self.opts.min_fragments < 1 or self.opts.max_fragments < self.opts.min_fragments:
            raise ValueError("python generator: need 1 <= min_fragments <= max_fragments")
        self.stats = PyProgStats()

    def candidates(self, seed: int) -> Iterator[Program]:
        """The programs tried for ``seed``, in order (pure: renders, runs nothing)."""
        yield from (render_program(seed, a, self.opts, self.names) for a in itertools.count())

    def on_valid(self, program: Program) -> None:
        self.stats.produced += 1
        frags = set(fragments_of(program))
        self.stats.fragments_tried.update(frags)
        self.stats.fragments_valid.update(frags)
        self.stats.features.update(features_of(program))

    def on_invalid(self, program: Program) -> None:
        self.stats.fragments_tried.update(set(fragments_of(program)))


__all__ = [
    "FRAGMENTS",
    "PyProgOptions",
    "PyProgStats",
    "PythonGenerator",
    "compose",
    "features_of",
    "fragments_of",
    "render_program",
]
