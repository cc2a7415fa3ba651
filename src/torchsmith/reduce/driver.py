"""The reduction driver: passes propose, crash-safe workers judge, the first success wins.

Entry points: :func:`reduce_program` (a program and options, from ``torchsmith reduce FILE``) and
:func:`reduce_finding` (a finding folder; the fuzz loop calls it for each new distinct bug).

A reduced finding is an ordinary finding folder (``meta.json``, ``program.py``, ``repro.py``,
``log.txt``) written next to the original, whose meta.json adds ``reduced_from`` (the original's
id), ``original_signature`` and ``reduction`` (:meth:`ReductionResult.summary`); the original's
meta.json gains ``reduced_to``; ``reduce-log.txt`` lists every candidate tested.
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import dataclasses
import queue
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from torchsmith.check import check_program
from torchsmith.dedup import signature
from torchsmith.execute.worker import Worker
from torchsmith.finding import Finding, update_meta, write_finding
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program, declared_settings
from torchsmith.program.render import render_script
from torchsmith.reduce.acceptance import script_reproduces, settle_target
from torchsmith.reduce.interesting import Attempt, Judge, Target
from torchsmith.reduce.passes import (
    Context,
    Pass,
    default_passes,
    function_passes,
    generic_passes,
)
from torchsmith.reduce.probe import Records
from torchsmith.reduce.source import forward_statements, size_key, undefined_names, unparse, view
from torchsmith.verdict import CheckResult

Log = Callable[[str], None]

#: The share of the time budget one go of the generic pass may take (at least 15 s).
GENERIC_SHARE = 0.25


@dataclasses.dataclass
class AttemptRecord:
    """One tested candidate, for the log and the statistics."""

    pass_name: str
    label: str
    verdict: str
    interesting: bool
    reason: str
    seconds: float
    accepted: bool = False

    def line(self) -> str:
        mark = "ACCEPT" if self.accepted else ("ok" if self.interesting else "no")
        why = f" ({self.reason})" if self.reason and not self.interesting else ""
        return f"{mark:6} {self.pass_name}: {self.label}: {self.verdict}{why} [{self.seconds:.1f}s]"


@dataclasses.dataclass
class ReductionResult:
    """What a reduction produced. ``reduced`` is the original when nothing could be removed;
    ``result`` is the full (localized) check of ``reduced``; ``confirmed`` says it is the same
    failure as the original's; ``script_reproduces`` whether the rendered script alone exits 1."""

    original: Program
    reduced: Program
    target: Target | None
    result: CheckResult | None
    reproduced: bool
    confirmed: bool = False
    script_reproduces: bool | None = None
    seconds: float = 0.0
    stats: dict[str, Any] = dataclasses.field(default_factory=dict)
    attempts: list[AttemptRecord] = dataclasses.field(default_factory=list)
    error: str = ""

    @property
    def progress(self) -> bool:
        return size_key(self.reduced.source) < size_key(unparse(view(self.original.source).tree))

    @property
    def forward_before(self) -> int:
        return forward_statements(self.original.source, self.original.model)

    @property
    def forward_after(self) -> int:
        return forward_statements(self.reduced.source, self.reduced.model)

    def summary(self) -> dict[str, Any]:
        """The JSON-safe record kept in the reduced finding's ``meta.json`` under ``reduction``."""
        lines = [len(self.original.source.splitlines()), len(self.reduced.source.splitlines())]
        return {
            "target": self.target.describe() if self.target else None,
            "reproduced": self.reproduced,
            "confirmed": self.confirmed,
            "script_reproduces": self.script_reproduces,
            "forward_statements": [self.forward_before, self.forward_after],
            "lines": lines,
            "seconds": round(self.seconds, 1),
            **self.stats,
            "error": self.error or None,
        }


def _unreduced(
    program: Program, target: Target | None, result: CheckResult | None, t0: float, **kw: Any
) -> ReductionResult:
    """The result of a reduction that did not start: the program as it is, and why (``error``)."""
    return ReductionResult(
        program, program, target, result, False, seconds=time.monotonic() - t0, **kw
    )


class Reducer:
    """Source-level test-case reduction for torch.compile failures.

    The contract, in the spirit of Hypothesis's shrinker ("Designing Shrink Passes"):

    * **Deterministic.** Passes are pure source-to-source functions of the current program and
      yield candidates in a fixed order. Candidates are tested up to ``len(judges)`` at a time, but
      the one accepted is always the *first interesting candidate in pass order*: a later one
      that succeeds while an earlier one is still running is never taken. With a deterministic
      compiler, the same input, options and pass list give the same reduced program whatever the
      number of workers.
    * **Terminates.** A candidate is tested only if it is strictly smaller than the current
      program under :func:`~torchsmith.reduce.source.size_key` (statements, AST nodes, non-float32
      dtypes, integer literals, length, text: lexicographic and well-founded). Each acceptance
      strictly decreases that key, so the fixed-point loop ends; ``time_budget`` bounds it in
      wall-clock time as well (no new candidate starts after it; running ones finish), and one
      go of the generic pass gets at most :data:`GENERIC_SHARE` of it.
    * **A success never costs more than a constant factor over a failure.** A failing candidate
      costs one worker job (or none: syntax errors, names left undefined and candidates that are
      not smaller are rejected in the parent, and repeated sources hit a cache). A success costs
      two jobs (the stage's rung and the rung below, see :mod:`~torchsmith.reduce.interesting`)
      plus at most ``len(judges) - 1`` sibling candidates already in flight, which are waited
      for so that no job runs while the current program changes. After a success a pass starts
      again from the new program; candidates it already judged come from the cache.
    * **Never drifts.** Every candidate is judged by the strict test of
      :class:`~torchsmith.reduce.interesting.Judge`: same verdict, stage and failure key. The
      final program is checked once more on the full backend ladder.
    """

    def __init__(
        self,
        program: Program,
        target: Target,
        judges: list[Judge],
        *,
        passes: list[tuple[str, Pass]] | None = None,
        generic: list[tuple[str, Pass]] | None = None,
        time_budget: float = 300.0,
        log: Log | None = None,
    ) -> None:
        self.current = program
        self.target = target
        self.judges: queue.Queue[Judge] = queue.Queue()
        for j in judges:
            self.judges.put(j)
        self.n = len(judges)
        if passes is None:
            is_fn = view(program.source, program.model).is_function
            passes = function_passes() if is_fn else default_passes()
        self.passes = passes
        self.generic = generic_passes() if generic is None else generic
        self.deadline = time.monotonic() + time_budget
        self.generic_budget = max(15.0, GENERIC_SHARE * time_budget)
        self.generic_deadline = self.deadline
        self.log = log or (lambda line: None)
        self.cache: dict[str, Attempt] = {}
        self.probes: dict[str, Records | None] = {}
        self.attempts: list[AttemptRecord] = []
        self.accepted: list[Program] = []
        self.counts: dict[str, list[int]] = {}  # pass -> [tested, accepted]
        self.cache_hits = 0
        self.skipped = 0
        self.pool = cf.ThreadPoolExecutor(max_workers=self.n, thread_name_prefix="reduce")
        self._has_inputs_list = view(program.source, program.model).inputs_list() is not None
        self._facts: tuple[str, tuple, set[str]] = ("", (), set())

    # -- the loop ----------------------------------------------------------------------------
    def out_of_time(self) -> bool:
        return time.monotonic() >= self.deadline

    def run(self) -> Program:
        try:
            while not self.out_of_time():
                progress = False
                for name, p in self.passes:
                    while not self.out_of_time() and self._run_pass(name, p):
                        progress = True
                if progress:
                    continue
                # The domain passes are stuck: one go of the generic passes, then again if they
                # found something the domain passes may build on.
                # It gets a share of the budget: it asks many questions for small gains.
                self.generic_deadline = min(self.deadline, time.monotonic() + self.generic_budget)
                if self.out_of_time() or not any(
                    self._run_pass(name, p) for name, p in self.generic
                ):
                    break
        finally:
            self.pool.shutdown(wait=True)
        return self.current

    def _program(self, source: str) -> Program:
        c = self.current
        return Program(source=source, model=c.model, name=c.name, origin="reduced")

    def _context(self) -> Context:
        program = self.current
        return Context(
            program=program,
            probe=lambda: self._probe(program),
            check=self._check_generic,
        )

    def _run_pass(self, name: str, p: Pass) -> bool:
        """Run ``p`` on the current program; True when it replaced it by a smaller one."""
        self.counts.setdefault(name, [0, 0])
        found = self._first_success(name, p(self._context()))
        if found is None:
            return False
        label, source = found
        self.current = self._program(source)
        self.accepted.append(self.current)
        self.counts[name][1] += 1
        self.log(
            f"accepted {name}: {label} -> {forward_statements(source, self.current.model)}"
            f" statements in forward, {len(source.splitlines())} lines"
        )
        return True

    # -- candidates --------------------------------------------------------------------------
    def _prefilter(self, source: str, allow_equal: bool = False) -> str | None:
        """Why ``source`` need not be run at all (None: run it)."""
        try:
            key = size_key(source)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", SyntaxWarning)
                compile(source, "<candidate>", "exec")
            v = view(source, self.current.model)
        except (SyntaxError, ValueError):
            return "does not parse"
        cur_key, cur_undefined = self._current_facts()
        if key > cur_key or (key == cur_key and not allow_equal):
            return "not smaller"
        if v.forward is None:
            return "no model class or no forward"
        if v.inputs_list() is None and self._has_inputs_list:
            return "the inputs are no longer a list literal"
        if undefined_names(v.tree) - cur_undefined:
            return "leaves a name undefined"
        return None

    def _current_facts(self) -> tuple[tuple, set[str]]:
        src = self.current.source
        if self._facts[0] != src:
            self._facts = (src, size_key(src), undefined_names(view(src).tree))
        return self._facts[1], self._facts[2]

    def _test(self, source: str) -> Attempt:
        judge = self.judges.get()
        try:
            return judge.test(self._program(source))
        except Exception as e:  # torchsmith failed in the worker: not the same failure
            return Attempt(False, "error", f"{type(e).__name__}: {e}"[:300])
        finally:
            self.judges.put(judge)

    def _record(self, name: str, label: str, att: Attempt) -> AttemptRecord:
        rec = AttemptRecord(name, label, att.verdict, att.interesting, att.reason, att.seconds)
        self.attempts.append(rec)
        self.counts.setdefault(name, [0, 0])[0] += 1
        return rec

    def _first_success(
        self, name: str, candidates: Iterable[tuple[str, str]]
    ) -> tuple[str, str] | None:
        """The first interesting candidate in order, testing up to ``n`` at a time."""
        it = iter(candidates)
        pending: collections.deque[tuple[str, str, cf.Future[Attempt], bool]] = collections.deque()
        exhausted = False
        while True:
            while not exhausted and len(pending) < self.n and not self.out_of_time():
                try:
                    label, source = next(it)
                except StopIteration:
                    exhausted = True
                    break
                if self._prefilter(source) is not None:
                    self.skipped += 1
                    continue
                fut: cf.Future[Attempt]
                cached = source in self.cache
                if cached:
                    self.cache_hits += 1
                    fut = cf.Future()
                    fut.set_result(self.cache[source])
                else:
                    fut = self.pool.submit(self._test, source)
                pending.append((label, source, fut, cached))
            if not pending:
                return None
            label, source, fut, cached = pending.popleft()
            att = fut.result()
            self.cache[source] = att
            rec = None if cached else self._record(name, label, att)
            if rec is not None:
                self.log(rec.line())
            if att.interesting:
                if rec is not None:
                    rec.accepted = True
                for lab, src, f, c in pending:  # drain: no job may run while the program changes
                    a = f.result()
                    self.cache[src] = a
                    if not c:
                        self._record(name, lab, a)
                return label, source

    def _check_generic(self, source: str) -> bool:
        """Sequential predicate for the generic pass: prefilter, cache, budget, strict test."""
        if not source.endswith("\n"):
            source += "\n"
        if time.monotonic() >= self.generic_deadline:
            return False
        if self._prefilter(source, allow_equal=True) is not None:
            return False
        if source not in self.cache:
            att = self.pool.submit(self._test, source).result()
            self.cache[source] = att
            self.log(self._record("pysource-minimize", "candidate", att).line())
        return self.cache[source].interesting

    def _probe(self, program: Program) -> Records | None:
        if program.source not in self.probes:
            judge = self.judges.get()
            try:
                self.probes[program.source] = judge.probe(program)
            finally:
                self.judges.put(judge)
        return self.probes[program.source]

    def stats(self) -> dict[str, Any]:
        jobs = 0
        while True:  # all judges are idle here
            try:
                jobs += self.judges.get_nowait().jobs
            except queue.Empty:
                break
        return {
            "tested": len(self.attempts),
            "accepted": len(self.accepted),
            "cache_hits": self.cache_hits,
            "skipped_in_parent": self.skipped,
            "jobs": jobs,
            "workers": self.n,
            "passes": {
                k: {"tested": v[0], "accepted": v[1]} for k, v in self.counts.items() if v[0]
            },
        }


# -- the library calls ---------------------------------------------------------------------------
def reduce_program(
    program: Program,
    options: CheckOptions | None = None,
    *,
    workers: int = 1,
    time_budget: float = 300.0,
    result: CheckResult | None = None,
    worker: Worker | None = None,
    passes: list[tuple[str, Pass]] | None = None,
    generic: bool = True,
    verify_script: bool = True,
    reruns: int = 3,
    log: Log | None = None,
) -> ReductionResult:
    """Reduce ``program`` while it fails the same way under ``options``.

    ``result`` is the original's known check result (from a finding's meta.json); without it
    the program is checked and localized first. ``worker`` is reused as the first of ``workers``
    crash-safe workers (the others are started here and closed at the end). ``time_budget``
    bounds the search, not the initial and final checks. ``passes`` replaces the domain passes
    (the tests run single passes); ``generic=False`` skips pysource-minimize.

    No drift: the original is first re-run ``reruns`` times under the stage's rung; a failure
    that does not show every time is reported as flaky (``stats["flaky_rate"]``), not reduced.
    Every accepted candidate fails the same way and keeps the kinds of its inputs
    (:mod:`~torchsmith.reduce.kinds`); with ``verify_script`` the result is the newest step
    whose rendered script, run alone, shows the failure (earlier steps are tried when it does
    not).
    """
    options = options or CheckOptions()
    log = log or (lambda line: None)
    t0 = time.monotonic()
    own: list[Worker] = []
    if worker is None:
        worker = Worker(memory_mb=options.memory_mb)
        own.append(worker)
    try:
        if result is None:
            result = check_program(program, options.replace(localize=True), worker)
        if not result.is_bug:
            return _unreduced(
                program,
                None,
                result,
                t0,
                error=f"nothing to reduce: {result.verdict.value}: {result.reason}",
            )
        target = full_target = Target.from_result(result, options)
        log(f"target: {target.describe()} (rung {target.rung}, below {target.below})")
        first = Judge(worker, options, target)
        start = dataclasses.replace(
            program, source=unparse(view(program.source, program.model).tree)
        )
        target, shown = settle_target(first, start, target, reruns, log)
        if shown == 0:
            start = program
            target, shown = settle_target(first, start, target, reruns, log)
        if 0 < shown < max(1, reruns):
            rate = shown / max(1, reruns)
            return _unreduced(
                program,
                target,
                result,
                t0,
                stats={"flaky_rate": rate},
                error=f"flaky: the failure showed in {shown} of {reruns} runs at {target.rung}"
                f" ({rate:.0%}); not reduced",
            )
        base = first.test(start)
        if not base.interesting:
            base = first.test(program)
            start = program
        if not base.interesting:
            return _unreduced(
                program, target, result, t0, error=f"the failure does not reproduce: {base.reason}"
            )
        timeout = options.timeout
        if target.verdict.value != "timeout":
            timeout = min(options.timeout, max(120.0, 10 * base.seconds))
        first.timeout = timeout
        judges = [first]
        for _ in range(max(1, workers) - 1):
            w = Worker(memory_mb=options.memory_mb)
            own.append(w)
            judges.append(Judge(w, options, target, timeout))
        kinds = first.input_kinds(start)
        if kinds is None:
            log("the inputs' kinds could not be read: kinds are not checked")
        for j in judges:
            j.kinds = kinds
        reducer = Reducer(
            start,
            target,
            judges,
            passes=passes,
            generic=None if generic else [],
            time_budget=time_budget,
            log=log,
        )
        reduced = reducer.run()
        out = ReductionResult(program, reduced, target, None, True, attempts=reducer.attempts)
        out.stats = reducer.stats()
        alone = None
        if verify_script:

            def alone(p: Program) -> bool:
                return script_reproduces(p, options, target=target)

        _confirm(out, reducer.accepted, options, worker, log, alone, full_target)
        if out.script_reproduces is not None:
            log(f"standalone script reproduces: {out.script_reproduces}")
        out.seconds = time.monotonic() - t0
        return out
    finally:
        for w in own:
            w.close()


def _confirm(
    out: ReductionResult,
    accepted: list[Program],
    options: CheckOptions,
    worker: Worker,
    log: Log,
    alone: Callable[[Program], bool] | None = None,
    full_target: Target | None = None,
) -> None:
    """Check the reduced program on the full ladder and (with ``alone``) as a standalone
    script; fall back to earlier steps when either does not show the failure. When no step's
    script shows it alone, the newest step that holds on the ladder is kept and
    ``script_reproduces`` says False. The full check may match the key the original's full
    check had (``full_target``) where the rung's key differs (see ``settle_target``)."""
    assert out.target is not None
    full = options.replace(localize=True)
    held: tuple[Program, CheckResult] | None = None
    for candidate in [*reversed(accepted[-3:]), out.original][:4]:
        r = check_program(candidate, full, worker)
        same = out.target.matches(r) or (full_target is not None and full_target.matches(r))
        if not (same and r.stage == out.target.stage):
            log(f"full check of a reduced step gave {r.verdict.value} at {r.stage}: stepping back")
            continue
        if alone is None:
            out.reduced, out.result, out.confirmed = candidate, r, True
            return
        held = held or (candidate, r)
        if alone(candidate):
            out.reduced, out.result, out.confirmed = candidate, r, True
            out.script_reproduces = True
            return
        log("the standalone script of a reduced step does not show the failure: stepping back")
    if held is not None:
        out.reduced, out.result, out.confirmed = held[0], held[1], True
        out.script_reproduces = False
        return
    out.reduced, out.confirmed = out.original, False
    out.error = "no reduced step kept the failure on the full backend ladder"


# -- findings ------------------------------------------------------------------------------------
REDUCE_LOG = "reduce-log.txt"


def write_repro(res: ReductionResult, options: CheckOptions, path: Path) -> Path:
    """Write the reduced program as a standalone repro script at ``path`` (see ``render``)."""
    target = res.target.describe() if res.target else "unlocalized"
    header = f"torchsmith reduce: {target}\n{res.result.reason if res.result else ''}"
    path.write_text(render_script(res.reduced, options, header=header))
    return path


def write_reduced(finding: Finding, res: ReductionResult) -> Finding | None:
    """Write ``res`` as a finding next to ``finding``; None unless it is a confirmed, smaller
    program failing the same way."""
    if not (res.reproduced and res.confirmed and res.progress and res.result is not None):
        return None
    program = dataclasses.replace(
        res.reduced, name=f"{finding.program.name}-reduced", origin="reduced", path=None
    )
    res.result.program, res.result.digest = program.name, program.digest
    new = write_finding(
        finding.folder.parent,
        program,
        res.result,
        signature=signature(res.result, program),
        generator=finding.info.generator,
        seed=finding.info.seed,
        extra={
            "reduced_from": finding.id,
            "original_signature": finding.signature,
            "reduction": res.summary(),
        },
    )
    (new.folder / REDUCE_LOG).write_text("\n".join(a.line() for a in res.attempts) + "\n")
    update_meta(finding, reduced_to=new.id)
    return new


def finding_options(finding: Finding) -> CheckOptions:
    """The options a finding is reduced with: those it was found with, less what its program
    declares (each candidate's own declarations supply those, so a candidate that drops one
    is judged without it)."""
    return finding.options.without_declared(*declared_settings(finding.program.source))


def reduce_finding(
    finding: Finding,
    worker: Worker,
    *,
    options: CheckOptions | None = None,
    time_budget: float = 120.0,
) -> Finding | None:
    """Reduce one finding with ``worker`` and write the reduced finding next to it.

    Returns the new finding, or None when the failure no longer reproduces, nothing smaller
    fails the same way, or the reduced program did not hold on the full backend ladder.
    ``options`` default to the finding's own (those it was found with).
    """
    opts = options or finding_options(finding)
    res = reduce_program(
        finding.program,
        opts,
        workers=1,
        worker=worker,
        time_budget=time_budget,
        result=finding.result,
    )
    return write_reduced(finding, res)
