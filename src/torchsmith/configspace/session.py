"""A campaign's config space: which programs get settings, which, and the bisection of failures.

:class:`ConfigSampler` is what ``campaign/loop.py`` calls (``fuzz --config-space default|FILE``):

* :meth:`~ConfigSampler.sampled`: whether seed ``i`` is checked under a sample (the seed alone:
  such programs are never packed, a pack shares one configuration);
* :meth:`~ConfigSampler.pick`: the check options of one program: the campaign's own, plus its
  sample (never a key the user's ``--config`` or the program's ``compile_config`` sets);
* :meth:`~ConfigSampler.bisect`: a failure under a sample, bisected to the minimal set
  (:mod:`.bisect`) before it is recorded; the finding records that set;
* :meth:`~ConfigSampler.record`: the yields that steer the weights. An entry's weight is
  ``weight * (1 + BOOST * (bug findings + 1) / (programs + PRIOR))`` (the mix's formula,
  :mod:`torchsmith.generate.mix`), where *programs* counts the checked programs whose sample held
  the entry and *bug findings* the bugs whose minimal set holds it. With no yields yet the
  draw depends on the seed alone.

:func:`bisect_program` is the library call: one program under given settings, bisected.

The table is resolved once, on the first sampled program, against the worker's own torch
(:mod:`.present`): a worker under ``--python`` may run another release than the parent.
"""

from __future__ import annotations

import threading
from typing import Any

from torchsmith.check import CheckError, check_program
from torchsmith.configspace.bisect import Bisection, minimal_settings
from torchsmith.configspace.entry import parse_atom, program_traits
from torchsmith.configspace.space import Space, load_space
from torchsmith.execute.protocol import Request
from torchsmith.generate.mix import BOOST, PRIOR
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program, declared_settings
from torchsmith.verdict import CheckResult

PRESENT_JOB = "torchsmith.configspace.present:present_job"


class ConfigSampler:
    """The config space of one campaign session (thread-safe: slots share it). With no
    ``spec`` it samples nothing: every program gets the campaign's own options."""

    def __init__(self, spec: str | None, base: CheckOptions, adaptive: bool = True) -> None:
        self.table = load_space(spec) if spec else Space((), share=0.0, source="off")
        self.base = base
        self.adaptive = adaptive
        self.space: Space | None = None  # the table as the worker's torch has it
        self.torch: str | None = None
        self.yields: dict[str, list[int]] = {}  # key -> [programs checked with it, bugs needing it]
        self._lock = threading.Lock()

    def sampled(self, seed: int) -> bool:
        return self.table.sampled(seed)

    def resolve(self, worker: Any) -> Space:
        """The table less what the worker's torch lacks (asked once, then kept)."""
        with self._lock:
            if self.space is None:
                request = Request.call(PRESENT_JOB, None, self.base, keys=self._all_keys())
                outcome = worker.run(request, self.base.timeout, self.base.memory_mb)
                if outcome.status != "result" or outcome.result is None:
                    raise CheckError(
                        outcome.failure("the config space look-up") or "the worker gave no result"
                    )
                self.torch = outcome.result.get("torch")
                self.space = self.table.resolved(outcome.result["present"], self.base.device)
            return self.space

    def _all_keys(self) -> list[str]:
        keys = set(self.table.keys)
        for e in self.table.entries:
            keys.update(a.split("=", 1)[0].strip() for a in e.requires)
        return sorted(keys)

    def weights(self) -> dict[str, float]:
        """Each resolved entry's weight now (empty before the first yield: the entries' own)."""
        with self._lock:
            yields = {k: (v[0], v[1]) for k, v in self.yields.items()}
        if not self.adaptive or not yields or self.space is None:
            return {}
        out = {}
        for e in self.space.entries:
            programs, bugs = yields.get(e.key, (0, 0))
            out[e.key] = e.weight * (1.0 + BOOST * (bugs + 1.0) / (programs + PRIOR))
        return out

    def pick(self, seed: int, program: Program, worker: Any) -> tuple[CheckOptions, dict[str, Any]]:
        """The options program ``seed`` is checked with, and its sample (``{}``: the default
        path, i.e. exactly the campaign's options)."""
        if not self.sampled(seed):
            return self.base, {}
        space = self.resolve(worker)
        declared = declared_settings(program.source)[1]
        fixed = {**declared, **self.base.config}
        settings = space.sample(seed, self._weights_for(space, program), fixed=fixed)
        return self.with_settings(settings), settings

    def _weights_for(self, space: Space, program: Program) -> dict[str, float]:
        """:meth:`weights`, with 0 for the entries documented not to support one of the
        program's traits (``Entry.not_for``) and for the entries that require one of them."""
        weights = self.weights() or {e.key: e.weight for e in space.entries}
        traits = program_traits(program.source)
        banned = {e.key for e in space.entries if traits & set(e.not_for)}
        if not banned:
            return weights
        for e in space.entries:
            if e.key in banned or any(parse_atom(a)[0] in banned for a in e.requires):
                weights[e.key] = 0.0
        return weights

    def with_settings(self, settings: dict[str, Any]) -> CheckOptions:
        return self.base.replace(config={**settings, **self.base.config}) if settings else self.base

    def bisect(
        self,
        program: Program,
        result: CheckResult,
        settings: dict[str, Any],
        worker: Any,
    ) -> tuple[CheckResult, CheckOptions, dict[str, Any]]:
        """The failure ``result`` (under ``settings``) bisected to its minimal set: the result
        under that set, its options, and the finding's meta keys (:meth:`Bisection.meta`)."""
        found = minimal_settings(
            settings,
            result,
            lambda trial: check_program(program, self.with_settings(trial), worker),
        )
        return found.result, self.with_settings(found.settings), found.meta()

    def record(self, settings: dict[str, Any], minimal: dict[str, Any], bug: bool) -> None:
        """One checked program under ``settings``; ``bug``: a bug finding whose minimal set
        is ``minimal``."""
        if not settings:
            return
        with self._lock:
            for key in settings:
                self.yields.setdefault(key, [0, 0])[0] += 1
            if bug:
                for key in minimal:
                    self.yields.setdefault(key, [0, 0])[1] += 1


def bisect_program(
    program: Program,
    settings: dict[str, Any],
    options: CheckOptions | None = None,
    worker: Any = None,
) -> Bisection | None:
    """The library call: check ``program`` under ``settings`` (``--config`` keys) on top of
    ``options``; when it fails (a compiler bug or a fault), the minimal set of ``settings`` it
    needs (:func:`~torchsmith.configspace.bisect.minimal_settings`), else None. One worker
    (``worker``, else a fresh one) runs every check."""
    from torchsmith.execute.worker import Worker

    base = options or CheckOptions()
    own = worker is None
    worker = worker or Worker(memory_mb=base.memory_mb)
    try:

        def check(trial: dict[str, Any]) -> CheckResult:
            return check_program(program, base.replace(config={**base.config, **trial}), worker)

        result = check(settings)
        if not result.finding_kind:
            return None
        return minimal_settings(settings, result, check)
    finally:
        if own:
            worker.close()
