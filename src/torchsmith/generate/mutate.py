"""``--generator mutate``: new programs from existing ones by AST mutation.

The corpus is a folder of programs (``--gen-option corpus=DIR``: the user's files, finding
folders' ``program.py``, generated programs), or by default the built-in examples plus some
graph-generator programs. For seed ``s`` the generator picks a base program and applies a chain
of one to ``max_chain`` mutation operators (:mod:`torchsmith.generate.mutate_ops`); every mutant is
eager-checked in a worker (``GenContext.eager_check``, else its own) and an invalid one is replaced
by the next mutation, at most ``max_tries`` times. Same seed, same corpus: same mutant.
"""

from __future__ import annotations

import ast
import dataclasses
import random
import time
import typing
from collections import Counter
from collections.abc import Iterator
from typing import Any, TypeVar

from torchsmith.generate.coverage import WorkerClient
from torchsmith.generate.mutate_ops import MUTATORS, WEIGHTS
from torchsmith.generate.mutate_sites import Sites
from torchsmith.generate.protocol import GenContext
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program, ProgramFormatError
from torchsmith.program.load import program_from_source
from torchsmith.verdict import Verdict

T = TypeVar("T")

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def _coerce(value: Any, annotation: Any, name: str) -> Any:
    """A CLI string (or a value) as the field's type: int, float, bool, str, or None."""
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
    """Build the options dataclass ``cls`` from keyword options, strings included (CLI)."""
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(raw) - fields)
    if unknown:
        raise ValueError(
            f"{what}: unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(fields))}"
        )
    values = {k: _coerce(v, hints[k], k) for k, v in raw.items()}
    return cls(**values)


@dataclasses.dataclass
class MutateOptions:
    corpus: str | None = None  # files/folders, comma-separated; default: examples + generated
    operators: str | None = None  # comma-separated operator names (default: all)
    max_tries: int = 8  # mutants eager-checked per seed before giving up
    max_chain: int = 3  # mutations applied in a row to make one mutant
    generated: int = 24  # graph-generator programs in the default corpus
    check_timeout: float = 60.0  # seconds per eager check in the generator's own worker


@dataclasses.dataclass
class MutationStats:
    """What the generator did: seeds asked, mutants checked, valid ones, per operator."""

    seeds: int = 0
    produced: int = 0  # seeds that gave a valid mutant
    checked: int = 0  # mutants eager-checked
    valid: int = 0
    verdicts: Counter[str] = dataclasses.field(default_factory=Counter)
    operator_valid: Counter[str] = dataclasses.field(default_factory=Counter)
    operator_checked: Counter[str] = dataclasses.field(default_factory=Counter)
    check_seconds: float = 0.0

    @property
    def valid_rate(self) -> float:
        return self.valid / self.checked if self.checked else 0.0

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["check_seconds"] = round(self.check_seconds, 3)
        d["valid_rate"] = round(self.valid_rate, 4)
        d["operator_valid_rate"] = {
            op: round(self.operator_valid[op] / n, 3)
            for op, n in sorted(self.operator_checked.items())
        }
        return d


def mutate_source(
    base: Program, rng: random.Random, operators: list[str], chain: int
) -> tuple[str, list[str]] | None:
    """One mutant of ``base``: its source and what was done (``None`` if nothing applied)."""
    tree = ast.parse(base.source)
    done: list[str] = []
    names = list(operators)
    for _ in range(chain):
        order = []
        pool = names[:]
        while pool:  # weighted order without replacement: try the next one if one cannot apply
            pick = rng.choices(pool, weights=[WEIGHTS.get(n, 1.0) for n in pool], k=1)[0]
            order.append(pick)
            pool.remove(pick)
        for name in order:
            try:
                sites = Sites.of(tree, base.model)
            except ValueError:
                return None
            what = MUTATORS[name](sites, rng)
            if what is not None:
                done.append(what)
                break
    if not done:
        return None
    ast.fix_missing_locations(tree)
    return ast.unparse(tree) + "\n", done


def _operator_of(description: str) -> str:
    return description.split(":", 1)[0]


class MutationGenerator:
    """The ``mutate`` generator (see the module docstring). Options as keywords or CLI strings."""

    name = "mutate"

    def __init__(self, worker: Any = None, **options: Any) -> None:
        self.opts = typed_options(MutateOptions, options, "mutate generator")
        self.operators = self._operators(self.opts.operators)
        self.corpus, self.skipped = self._corpus()
        if not self.corpus:
            raise ValueError(f"mutate generator: no usable program in corpus {self.opts.corpus!r}")
        self.stats = MutationStats()
        self.client = WorkerClient(
            worker, CheckOptions(timeout=self.opts.check_timeout, localize=False)
        )

    @staticmethod
    def _operators(spec: str | None) -> list[str]:
        if not spec:
            return list(MUTATORS)
        names = [n.strip() for n in spec.split(",") if n.strip()]
        bad = [n for n in names if n not in MUTATORS]
        if bad:
            raise ValueError(
                f"mutate generator: unknown operator(s) {', '.join(bad)};"
                f" known: {', '.join(MUTATORS)}"
            )
        return names

    def _corpus(self) -> tuple[list[Program], list[str]]:
        from torchsmith.generate.prompts import default_corpus, load_corpus

        if self.opts.corpus:
            return load_corpus(self.opts.corpus)
        return default_corpus(self.opts.generated), []

    def candidates(self, seed: int) -> Iterator[Program]:
        """The mutants tried for ``seed``, in order (pure: parses and rewrites, runs nothing)."""
        rng = random.Random(f"torchsmith-mutate:{seed}")
        seen: set[str] = set()
        base = self.corpus[rng.randrange(len(self.corpus))]
        misses = 0
        attempt = 0
        while misses < 20:
            chain = rng.choices(
                range(1, self.opts.max_chain + 1), weights=[0.5, 0.3, 0.2][: self.opts.max_chain]
            )[0]
            made = mutate_source(base, rng, self.operators, chain)
            if made is None or made[0] in seen or not self._readable(made[0], base):
                misses += 1
                if misses % 5 == 0:  # this base gives nothing new: move to another
                    base = self.corpus[rng.randrange(len(self.corpus))]
                continue
            source, done = made
            seen.add(source)
            attempt += 1
            header = [f"# Mutated by torchsmith mutate: seed={seed} attempt={attempt}"]
            header += [f"# base: {base.name}"] + [f"# {d}" for d in done]
            yield Program(
                source="\n".join(header) + "\n" + source,
                model=base.model,
                name=f"mut_{seed}",
                origin="mutated",
                notes=(f"base={base.name}", *done),
            )

    @staticmethod
    def _readable(source: str, base: Program) -> bool:
        try:
            prog = program_from_source(source, name="mutant", scripts=False)
        except ProgramFormatError:
            return False
        return prog.model == base.model and prog.origin == "canonical"

    def generate(self, seed: int, ctx: GenContext) -> Program | None:
        """The first eager-valid mutant for ``seed`` (None after ``max_tries`` invalid ones)."""
        check = ctx.eager_check or self.client.eager
        self.stats.seeds += 1
        for i, mutant in enumerate(self.candidates(seed)):
            if i >= self.opts.max_tries:
                break
            t0 = time.monotonic()
            result = check(mutant)
            self.stats.check_seconds += time.monotonic() - t0
            self.stats.checked += 1
            self.stats.verdicts[result.verdict.value] += 1
            ops = {_operator_of(d) for d in mutant.notes[1:]}
            self.stats.operator_checked.update(ops)
            if result.verdict is Verdict.PASS:
                self.stats.valid += 1
                self.stats.produced += 1
                self.stats.operator_valid.update(ops)
                return mutant
        return None

    def close(self) -> None:
        self.client.close()

    def __enter__(self) -> MutationGenerator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["MutateOptions", "MutationGenerator", "MutationStats", "mutate_source", "typed_options"]
