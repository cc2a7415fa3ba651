"""What the eager-checked program families share: candidates tried until one is valid.

A family (``opinfo``, ``python``, ``rewrites``) yields candidate programs for a seed, most
promising first; :meth:`ValidatedFamily.first_valid` eager-checks them crash-safely (the
campaign's ``GenContext.eager_check``, else the family's own worker) and returns the first that
passes, after at most ``max_tries``. :class:`FamilyStats` counts tries, valid ones, verdicts and
check seconds; a family's own stats add what it records of its programs (dtypes, fragments,
patterns) through the :meth:`~ValidatedFamily.on_valid` / ``on_invalid`` hooks.
"""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from torchsmith.generate.coverage import WorkerClient
from torchsmith.generate.protocol import GenContext, typed_options
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program
from torchsmith.verdict import Verdict


@dataclasses.dataclass
class FamilyStats:
    """Candidates eager-checked, the valid ones, their verdicts and the seconds it took."""

    programs: int = 0  # seeds asked
    tries: int = 0
    valid: int = 0
    verdicts: Counter[str] = dataclasses.field(default_factory=Counter)
    check_seconds: float = 0.0

    @property
    def valid_rate(self) -> float:
        return self.valid / self.tries if self.tries else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe figures (counters as plain dicts, sorted by name)."""
        d: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            d[f.name] = dict(sorted(value.items())) if isinstance(value, Counter) else value
        d["check_seconds"] = round(self.check_seconds, 3)
        d["valid_rate"] = round(self.valid_rate, 4)
        return d


class ValidatedFamily:
    """A family that eager-checks its candidates; subclasses give :meth:`candidates`."""

    name: str = "family"

    stats: FamilyStats
    max_tries: int = 8
    #: The family's options dataclass (with ``max_tries`` and ``check_timeout`` fields), parsed
    #: by the one option parser in :meth:`parse_options`.
    Options: Any = None
    #: Options given as a list that the parser takes comma-separated.
    LIST_OPTIONS: tuple[str, ...] = ()

    def __init__(self, worker: Any = None, **options: Any) -> None:
        """Parse ``options`` into ``self.opts`` (:meth:`parse_options`), run the family's own
        :meth:`setup` (which may refuse them with ``ValueError``), then make the worker client
        that eager-checks candidates (``worker``, else its own, started when first needed)."""
        self.opts = self.parse_options(options)
        self.setup()
        timeout = self.opts.check_timeout
        self.client = WorkerClient(worker, CheckOptions(timeout=timeout, localize=False))

    def setup(self) -> None:
        """The family's own set-up once ``self.opts`` is parsed (stats, catalogs, checks)."""

    def parse_options(self, options: dict[str, Any]) -> Any:
        """``self.Options`` from keyword options or CLI strings (lists in :attr:`LIST_OPTIONS`
        joined with commas); sets ``max_tries`` from them."""
        options = dict(options)
        for key in self.LIST_OPTIONS:
            if isinstance(options.get(key), list | tuple):
                options[key] = ",".join(options[key])
        opts = typed_options(self.Options, options, f"{self.name} generator")
        self.max_tries = opts.max_tries
        return opts

    def candidates(self, seed: int) -> Iterator[Program]:  # pragma: no cover - abstract
        raise NotImplementedError

    def on_valid(self, program: Program) -> None:
        """Record what a valid program holds (the family's own figures)."""

    def on_invalid(self, program: Program) -> None:
        """Record a candidate that did not pass the eager check."""

    def generate(self, seed: int, ctx: GenContext) -> Program | None:
        """The first eager-valid candidate for ``seed`` (None after ``max_tries`` invalid ones)."""
        self.stats.programs += 1
        return self.first_valid(seed, ctx)

    def first_valid(self, seed: int, ctx: GenContext) -> Program | None:
        """The first of ``seed``'s candidates that passes the eager check (None after
        ``max_tries`` that do not)."""
        check = ctx.eager_check or self.client.eager
        for i, program in enumerate(self.candidates(seed)):
            if i >= self.max_tries:
                break
            t0 = time.monotonic()
            result = check(program)
            self.stats.check_seconds += time.monotonic() - t0
            self.stats.tries += 1
            self.stats.verdicts[result.verdict.value] += 1
            if result.verdict is Verdict.PASS:
                self.stats.valid += 1
                self.on_valid(program)
                return program
            self.on_invalid(program)
        return None

    def close(self) -> None:
        self.client.close()


def note_values(program: Program) -> dict[str, str]:
    """A program's ``key=value`` notes as a dict (``family=opinfo``, ``op=...``)."""
    return dict(n.split("=", 1) for n in program.notes if "=" in n)
