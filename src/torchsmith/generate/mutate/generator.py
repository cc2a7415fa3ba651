"""``--generator mutate``: new programs from existing ones by AST mutation.

The corpus is a folder of programs (``--gen-option corpus=DIR``: the user's files, finding
folders' ``program.py``, generated programs), or by default the built-in examples plus some
graph-generator programs. For seed ``s`` the generator picks a base program and applies a chain
of one to ``max_chain`` mutation operators (:mod:`torchsmith.generate.mutate.operators`); every mutant is
eager-checked in a worker (``GenContext.eager_check``, else its own) and an invalid one is replaced
by the next mutation, at most ``max_tries`` times. Same seed, same corpus: same mutant.
"""

from __future__ import annotations

import ast
import dataclasses
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

from torchsmith.generate.family import FamilyStats, ValidatedFamily
from torchsmith.generate.mutate.operators import MUTATORS, WEIGHTS
from torchsmith.generate.mutate.sites import Sites
from torchsmith.generate.protocol import GenContext
from torchsmith.program.format import Program, ProgramFormatError
from torchsmith.program.load import program_from_source


@dataclasses.dataclass
class MutateOptions:
    corpus: str | None = None  # files/folders, comma-separated; default: examples + generated
    operators: str | None = None  # comma-separated operator names (default: all)
    max_tries: int = 8  # mutants eager-checked per seed before giving up
    max_chain: int = 3  # mutations applied in a row to make one mutant
    generated: int = 24  # graph-generator programs in the default corpus
    check_timeout: float = 60.0  # seconds per eager check in the generator's own worker


@dataclasses.dataclass
class MutationStats(FamilyStats):
    """The family's figures (``tries`` mutants eager-checked, ``valid`` ones) plus seeds asked,
    seeds that gave a valid mutant, and per operator the mutants checked and the valid ones."""

    seeds: int = 0
    produced: int = 0  # seeds that gave a valid mutant
    operator_valid: Counter[str] = dataclasses.field(default_factory=Counter)
    operator_checked: Counter[str] = dataclasses.field(default_factory=Counter)

    @property
    def checked(self) -> int:
        """Mutants eager-checked (the family's ``tries``)."""
        return self.tries

    def to_dict(self) -> dict[str, Any]:
        d = super().to_dict()
        d["checked"] = self.tries
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


class MutationGenerator(ValidatedFamily):
    """The ``mutate`` generator (see the module docstring). Options as keywords or CLI strings.
    Mutants are eager-checked by the families' one try-until-valid loop
    (:meth:`ValidatedFamily.first_valid`)."""

    Options = MutateOptions  # its options, parsed by ``typed_options``

    name = "mutate"

    def setup(self) -> None:
        self.operators = self._operators(self.opts.operators)
        self.corpus, self.skipped = self._corpus()
        if not self.corpus:
            raise ValueError(f"mutate generator: no usable program in corpus {self.opts.corpus!r}")
        self.stats = MutationStats()

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
        from torchsmith.generate.llm.prompts import default_corpus, load_corpus

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

    def on_valid(self, program: Program) -> None:
        ops = {_operator_of(d) for d in program.notes[1:]}
        self.stats.operator_checked.update(ops)
        self.stats.operator_valid.update(ops)

    def on_invalid(self, program: Program) -> None:
        self.stats.operator_checked.update({_operator_of(d) for d in program.notes[1:]})

    def generate(self, seed: int, ctx: GenContext) -> Program | None:
        """The first eager-valid mutant for ``seed`` (None after ``max_tries`` invalid ones)."""
        self.stats.seeds += 1
        program = self.first_valid(seed, ctx)
        if program is not None:
            self.stats.produced += 1
        return program


__all__ = ["MutateOptions", "MutationGenerator", "MutationStats", "mutate_source"]
