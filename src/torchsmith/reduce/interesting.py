"""The interestingness test: does a candidate still fail *the same way*?

"The same way" is strict, because a loose test is how PyTorch's minifier drifts (its after-dynamo
mode accepts any exception 50 % similar to the first; pytorch#93594 turned an accuracy failure
into an unrelated runtime failure). A candidate is interesting only when all of these hold:

* run under the rung of the original stage (``inductor`` for an Inductor bug, ``eager`` for a
  Dynamo bug, ...), it is a compiler bug (a failure verdict in the compiled phase) with the same
  verdict, so ``invalid``, ``unstable``, ``nondeterministic``, a crash instead of a mismatch or a
  mismatch instead of a crash are all rejected;
* its :func:`~torchsmith.dedup.failure_key` (the one "same failure" key, dedup's too) equals
  the original's: a crash keeps its exception type and normalized
  message; a mismatch stays a ``same()`` failure judged against fp64 (not merely some difference)
  on the same kind of output (forward values, non-float values, gradients);
* under the rung just below it does not fail the same way, nor fail where the original passed:
  the stage did not move (on the deployment path, the rung below on its own ladder:
  ``aoti`` is checked against ``aoti_compile``). Only one rung below is run, not the whole ladder (the cost stays at two
  worker jobs for a success and one for most failures); the final reduced program is localized on
  the full ladder once by the driver.
"""

from __future__ import annotations

import dataclasses
import time

from torchsmith.check import run_job
from torchsmith.dedup import crash_frame, failure_key, is_stock_message, unwrap_failure
from torchsmith.execute.protocol import Request
from torchsmith.execute.worker import Worker
from torchsmith.localize import EXPORT_LADDER, LADDER, RUNG_STAGE
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program
from torchsmith.reduce.kinds import FUNCTION as KINDS_FUNCTION
from torchsmith.reduce.kinds import Kinds, keeps_kinds
from torchsmith.reduce.kinds import describe as describe_kinds
from torchsmith.reduce.probe import FUNCTION as PROBE_FUNCTION
from torchsmith.reduce.probe import Records, instrument
from torchsmith.verdict import CheckResult, Stage, Verdict


@dataclasses.dataclass(frozen=True)
class Target:
    """The failure a reduction must keep, and the rungs that show it."""

    verdict: Verdict
    stage: Stage | None
    key: tuple[str, ...]
    rung: str  # the backend run for every candidate
    below: str | None  # the rung below it (must not fail the same way), None for Dynamo
    below_verdict: str | None  # what the original gave there ("pass" when it was not run)
    reason: str = ""
    #: A wrong value's smallest accepted difference, compiled vs eager (0: no floor): twice the
    #: tolerance, or the original's own difference when that is smaller. Shrinking constants
    #: must not carry a failure to the tolerance's edge, where the written repro and the
    #: worker may round it apart.
    margin: float = 0.0
    #: A crash with one of Python's stock messages (``tuple index out of range``): the innermost
    #: torch frame it was raised at, which a candidate must keep (the same words from another
    #: place are another bug: ``len(t)`` of a 0-d tensor once shrank to ``len()``).
    frame: str = ""

    @classmethod
    def from_result(cls, result: CheckResult, options: CheckOptions) -> Target:
        stage = result.stage
        rung = options.backend
        for backend, s in RUNG_STAGE.items():
            if s is stage:
                rung = backend
        below = None
        ladder = next((lad for lad in (LADDER, EXPORT_LADDER) if rung in lad), ())
        if ladder and ladder.index(rung) > 0:
            below = ladder[ladder.index(rung) - 1]
        elif rung not in LADDER and stage is Stage.BACKEND:
            below = LADDER[2]
        if stage in (None, Stage.UNKNOWN):
            below = None
        below_verdict = result.ladder.get(below, "pass") if below else None
        if below_verdict == "not run":
            below_verdict = "pass"
        key = failure_key(result)
        margin = min(2 * options.tol, _difference(result)) if "same-vs-fp64" in key else 0.0
        frame = ""
        if result.verdict is Verdict.CRASH:
            message = unwrap_failure(key[1], key[2])[1]
            frame = crash_frame(result) if is_stock_message(message) else ""
        return cls(
            result.verdict, stage, key, rung, below, below_verdict, result.reason, margin, frame
        )

    def describe(self) -> str:
        stage = self.stage.value if self.stage else "unlocalized"
        return f"{self.verdict.value} at {stage} {'/'.join(self.key[1:])}".strip()

    def matches(self, result: CheckResult) -> bool:
        same = result.is_bug and result.verdict is self.verdict and failure_key(result) == self.key
        return same and (not self.frame or crash_frame(result) == self.frame)

    def at_edge(self, result: CheckResult) -> bool:
        """A wrong value whose difference fell under :attr:`margin`."""
        return self.margin > 0 and _difference(result) < self.margin


def _difference(result: CheckResult) -> float:
    """The largest compiled-vs-eager difference a mismatch's evidence records (inf: none)."""
    figs = (result.evidence.get("figures") or {}).get("compiled_vs_eager") or {}
    value = figs.get("max_abs")
    return float(value) if isinstance(value, int | float) else float("inf")


@dataclasses.dataclass
class Attempt:
    """One candidate's test: interesting or not, and why."""

    interesting: bool
    verdict: str  # what the stage's rung gave (or "skipped")
    reason: str = ""
    jobs: int = 0
    seconds: float = 0.0


class Judge:
    """Runs candidates in one crash-safe worker. Not thread-safe: one per thread."""

    def __init__(
        self, worker: Worker, options: CheckOptions, target: Target, timeout: float | None = None
    ) -> None:
        self.worker = worker
        self.options = options.replace(localize=False, bisect=False)
        self.target = target
        self.timeout = timeout or options.timeout
        self.jobs = 0
        #: The original's input kinds: when set, a candidate must keep them (tensor stays tensor).
        self.kinds: Kinds | None = None

    def run(self, program: Program, backend: str) -> CheckResult:
        self.jobs += 1
        request = Request.check(program, self.options, backend)
        return run_job(self.worker, request, self.options, self.timeout)

    def test(self, program: Program) -> Attempt:
        t0 = time.monotonic()
        jobs0 = self.jobs
        tgt = self.target

        def done(ok: bool, verdict: str, reason: str = "") -> Attempt:
            return Attempt(ok, verdict, reason, self.jobs - jobs0, round(time.monotonic() - t0, 3))

        r = self.run(program, tgt.rung)
        if not tgt.matches(r):
            what = r.verdict.value
            if r.verdict is tgt.verdict and not r.is_bug:
                what += f" in {r.phase.value if r.phase else '?'}"
            elif r.verdict is tgt.verdict:
                what += f" of another kind ({'/'.join(failure_key(r)[1:])})"
            return done(False, r.verdict.value, f"{what} at {tgt.rung}: {r.reason[:160]}")
        if tgt.at_edge(r):
            diff = _difference(r)
            return done(False, r.verdict.value, f"difference {diff:.3g} under {tgt.margin:.3g}")
        if tgt.below:
            low = self.run(program, tgt.below)
            moved = low.is_bug and low.verdict is tgt.verdict
            new = low.verdict.value != tgt.below_verdict and low.verdict is not Verdict.PASS
            if moved or new:
                return done(
                    False,
                    r.verdict.value,
                    f"{low.verdict.value} already at {tgt.below}: the stage would move",
                )
        if self.kinds is not None:
            got = self.input_kinds(program)
            if got is None or not keeps_kinds(got, self.kinds):
                what = describe_kinds(got) if got is not None else "unreadable"
                return done(False, r.verdict.value, f"inputs changed kind: {what}")
        return done(True, r.verdict.value)

    def input_kinds(self, program: Program) -> Kinds | None:
        """The kinds of ``program``'s call arguments (a load in the worker, nothing compiled)."""
        self.jobs += 1
        req = Request.call(KINDS_FUNCTION, program, self.options)
        out = self.worker.run(req, self.timeout, self.options.memory_mb)
        if out.status != "result" or not out.result:
            return None
        return list(out.result["calls"])

    def probe(self, program: Program) -> Records | None:
        """The intermediate values of ``program``'s forward (None when it cannot be probed)."""
        inst = instrument(program)
        if inst is None:
            return None
        self.jobs += 1
        req = Request.call(PROBE_FUNCTION, inst, self.options)
        out = self.worker.run(req, self.timeout, self.options.memory_mb)
        if out.status != "result" or not out.result:
            return None
        return [(int(i), str(n), d) for i, n, d in out.result["records"]]
