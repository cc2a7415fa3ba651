"""Verdicts as data: the symptom and stage enums and the result object every command exchanges.

The JSON form of :class:`CheckResult` is the versioned schema documented in
``notes/verdict-schema.md``; bump :data:`SCHEMA_VERSION` on any incompatible change.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

SCHEMA_VERSION = 1

#: ``imprecise`` (a precision loss ``same()`` lets through): compiled's RMSE against fp64 at
#: least IMPRECISE_RATIO times eager's, on an output of at least IMPRECISE_MIN_NUMEL values, and
#: at least IMPRECISE_MIN_EPS units of the output dtype's eps relative to the output's RMS (a
#: few ulps are never a precision bug). Chosen by measurement: ``bench/imprecise.py``.
IMPRECISE_RATIO = 10.0
IMPRECISE_MIN_NUMEL = 256
IMPRECISE_MIN_EPS = 16.0
#: The ulp rule for tiny outputs of accurate functions (``oracle/ulps.py`` says why): eager at
#: most ULPS_EAGER_MAX ulps from fp64 everywhere, compiled ULPS_IMPRECISE ulps or more somewhere
#: is ``imprecise``, ULPS_MISMATCH or more ``mismatch``. Here so the standalone repro
#: (``program/render.py``) judges with the same numbers.
ULPS_EAGER_MAX = 4.0
ULPS_IMPRECISE = 128.0
ULPS_MISMATCH = 1024.0


class Verdict(str, enum.Enum):
    """What one check concluded about one program."""

    PASS = "pass"
    INVALID = "invalid"  # eager raises: the program is wrong, not the compiler
    NONDETERMINISTIC = "nondeterministic"  # two seeded eager runs differ
    UNSTABLE = "unstable"  # compiled differs, but eager moves as far under rounding noise
    CRASH = "crash"  # compiled raises, eager does not
    MISMATCH = "mismatch"  # compiled values wrong against fp64, judged by same()
    NAN_MISMATCH = "nan-mismatch"  # NaN/inf where fp64 and eager have finite values (or back)
    META_MISMATCH = "meta-mismatch"  # output structure, shape or dtype differs
    IMPRECISE = "imprecise"  # passes same(), but compiled is many times further from fp64
    LIMIT = "limit"  # the tool could not hold the program (its own memory cap, outside compile)
    TIMEOUT = "timeout"  # a run went past the wall-clock limit
    DIED = "died"  # the worker process died: signal, exit code or memory cap

    @property
    def category(self) -> Category:
        """What this verdict means when it comes from the compiled phase (a result's own
        :attr:`CheckResult.category` also weighs the phase)."""
        return _CATEGORY[self]

    @property
    def is_failure_kind(self) -> bool:
        """Verdicts that are compiler bugs (or lesser ones) when they happen in the compiled
        phase."""
        return self.category in (Category.BUG, Category.LESSER)

    @property
    def is_behaviour(self) -> bool:
        """A run that did not finish normally: raised, died, hung or passed the tool's limit
        (crash-like: a finding is named by its exception or signal, never by its ops)."""
        return self in (Verdict.CRASH, Verdict.DIED, Verdict.TIMEOUT, Verdict.LIMIT)

    @property
    def is_process_failure(self) -> bool:
        """The worker process did not finish the run: died, hung, or the tool's memory cap."""
        return self in (Verdict.DIED, Verdict.TIMEOUT, Verdict.LIMIT)

    @property
    def is_wrong_output(self) -> bool:
        """Compiled finished but its outputs are wrong: values, NaNs, meta or precision."""
        return self in (
            Verdict.MISMATCH,
            Verdict.NAN_MISMATCH,
            Verdict.META_MISMATCH,
            Verdict.IMPRECISE,
        )

    @property
    def is_accuracy(self) -> bool:
        """Wrong values (not structure): what PyTorch's accuracy minifier reduces."""
        return self in (Verdict.MISMATCH, Verdict.NAN_MISMATCH, Verdict.IMPRECISE)

    @property
    def is_numeric_mismatch(self) -> bool:
        """A numerical mismatch (values or NaNs): what the sensitivity probe must confirm before
        it stands."""
        return self in (Verdict.MISMATCH, Verdict.NAN_MISMATCH)

    @property
    def eager_valid(self) -> bool:
        """The program ran in eager (twice, alike): it is a valid test program, whatever
        compiled did."""
        return self not in (Verdict.INVALID, Verdict.NONDETERMINISTIC) and (
            not self.is_process_failure
        )

    @property
    def style(self) -> str:
        """The console style of this verdict (rich)."""
        return self.category.style


#: Which wrong output a comparison reports first when several leaves fail: structure before
#: NaNs before values before precision.
WRONG_OUTPUT_ORDER = (
    Verdict.META_MISMATCH,
    Verdict.NAN_MISMATCH,
    Verdict.MISMATCH,
    Verdict.IMPRECISE,
)


class Category(str, enum.Enum):
    """The one grouping of verdicts that every report, count and exit code asks for."""

    PASS = "pass"  # compiled agrees with eager, judged against fp64
    BUG = "bug"  # a compiler bug: compiled raises, dies, hangs or gives wrong outputs
    LESSER = "lesser"  # a lesser compiler bug: a precision loss (``imprecise``)
    PROGRAM_FAULT = "program-fault"  # the program's own: eager raises, differs, dies or hangs
    NOT_JUDGED = "not-judged"  # the tool cannot tell (``unstable``, its own memory limit)

    @property
    def exit_code(self) -> int:
        """CLI exit status: 0 pass, 1 a compiler bug (lesser included), 2 not judgeable."""
        return {Category.PASS: 0, Category.BUG: 1, Category.LESSER: 1}.get(self, 2)

    @property
    def style(self) -> str:
        """The console style of this category (rich)."""
        return _STYLE[self]


_CATEGORY = {
    Verdict.PASS: Category.PASS,
    Verdict.INVALID: Category.PROGRAM_FAULT,
    Verdict.NONDETERMINISTIC: Category.PROGRAM_FAULT,
    Verdict.UNSTABLE: Category.NOT_JUDGED,
    Verdict.CRASH: Category.BUG,
    Verdict.MISMATCH: Category.BUG,
    Verdict.NAN_MISMATCH: Category.BUG,
    Verdict.META_MISMATCH: Category.BUG,
    Verdict.IMPRECISE: Category.LESSER,
    Verdict.LIMIT: Category.NOT_JUDGED,
    Verdict.TIMEOUT: Category.BUG,
    Verdict.DIED: Category.BUG,
}

_STYLE = {
    Category.PASS: "green",
    Category.BUG: "bold red",
    Category.LESSER: "red",
    Category.PROGRAM_FAULT: "yellow",
    Category.NOT_JUDGED: "yellow",
}


class Symptom(str, enum.Enum):
    """How a finding shows itself (the NNSmith-style symptom axis)."""

    EXCEPTION = "exception"
    SEGFAULT = "segfault"  # died by a signal
    EXIT = "exit"  # died with an exit code (os._exit, abort through exit)
    OOM = "oom"  # killed at the memory cap
    HANG = "hang"
    WRONG_VALUE = "wrong-value"
    WRONG_NAN = "wrong-nan"
    WRONG_META = "wrong-meta"
    WRONG_STRIDE = "wrong-stride"  # only the output's strides differ (lesser severity)
    PRECISION = "precision"  # a precision loss (lesser severity than a wrong value)
    #: a data-dependent guard in torch's own code: an op not yet unbacked-friendly (ddguard.py)
    DATA_DEPENDENT = "data-dependent"

    @property
    def is_lesser(self) -> bool:
        """A lesser bug: a precision loss, strides that differ where values and shapes agree, or
        a data-dependent guard in torch's code (an unbacked-support gap)."""
        return self in (Symptom.PRECISION, Symptom.WRONG_STRIDE, Symptom.DATA_DEPENDENT)


_SYMPTOMS = {
    Verdict.CRASH: Symptom.EXCEPTION,
    Verdict.MISMATCH: Symptom.WRONG_VALUE,
    Verdict.NAN_MISMATCH: Symptom.WRONG_NAN,
    Verdict.META_MISMATCH: Symptom.WRONG_META,
    Verdict.IMPRECISE: Symptom.PRECISION,
    Verdict.TIMEOUT: Symptom.HANG,
    Verdict.LIMIT: Symptom.OOM,
}


class Stage(str, enum.Enum):
    """Where in torch.compile the failure lives: the first backend rung that shows it."""

    DYNAMO = "dynamo"  # backend="eager" already fails
    AOTAUTOGRAD = "aotautograd"  # "aot_eager"
    DECOMP = "decomp"  # "aot_eager_decomp_partition": decompositions and partitioner
    INDUCTOR = "inductor"
    #: Inductor's rung fails only with the compile caches on: the artifact an on-disk cache
    #: (AOTAutograd's, the FX graph cache) returned is not what a fresh compile makes (a
    #: cache key missing something the compile depends on: input aliasing, PR #184694)
    CACHE = "compile-cache"
    BACKEND = "backend"  # a user backend beyond the standard ladder
    # The deployment path (``--backend aoti``; oracle/export_path.py), its own ladder:
    EXPORT = "export"  # torch.export.export, the exported program run eagerly, already fails
    EXPORT_DECOMP = "export-decomp"  # ... after run_decompositions()
    AOTI_COMPILE = "aoti-compile"  # aoti_compile_and_package raises or dies
    AOTI_RUN = "aoti-run"  # the built package fails when loaded or run (wrong values included)
    UNKNOWN = "unknown"  # no rung reproduced the failure (flaky) or not localized


class Phase(str, enum.Enum):
    """Which run of the program the worker was in when something happened."""

    LOAD = "load"
    EAGER = "eager"
    EAGER_REPEAT = "eager-repeat"
    FP64 = "fp64"
    COMPILED = "compiled"
    COMPARE = "compare"
    PROBE = "probe"  # the sensitivity probe's eager variants: the tool's work, not the program's
    BISECT = "bisect"


#: Phases in which a failure belongs to the compiler. A failure while loading, in eager or in the
#: float64 run belongs to the program or to eager PyTorch, never to torch.compile.
COMPILER_PHASES = {Phase.COMPILED, Phase.COMPARE}


@dataclasses.dataclass
class CheckResult:
    """The verdict on one program, with its evidence.

    ``evidence`` holds verdict-specific data (see ``notes/verdict-schema.md``): for ``invalid`` the
    op, its argument shapes and the broken constraint; for ``crash`` the exception type, message
    and traceback tail; for ``mismatch`` the error figures of compiled and eager against fp64; for
    ``died`` the signal or exit code. ``stage`` and ``ladder`` are filled by localization.
    """

    verdict: Verdict
    phase: Phase | None = None
    reason: str = ""  # one line, for humans and for stderr
    evidence: dict[str, Any] = dataclasses.field(default_factory=dict)
    stage: Stage | None = None
    ladder: dict[str, str] = dataclasses.field(default_factory=dict)  # backend -> verdict value
    bisect: dict[str, Any] | None = None
    program: str = ""  # program name
    digest: str = ""  # program content digest
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    timings: dict[str, float] = dataclasses.field(default_factory=dict)
    log_tail: str = ""  # what the worker printed around the failure
    torch: str = ""  # the torch version that produced the verdict (the worker's; --python)

    @property
    def is_bug(self) -> bool:
        """True when this result is a compiler bug: a failure verdict in a compiler phase."""
        return self.verdict.is_failure_kind and self.phase in COMPILER_PHASES

    @property
    def category(self) -> Category:
        """The verdict's category, weighing the phase: a failure outside the compiled phases
        (eager or the float64 run died or hung) is the program's fault; one in the tool's own
        work (the probe, bisecting) is not judged."""
        cat = self.verdict.category
        if cat in (Category.BUG, Category.LESSER) and self.phase not in COMPILER_PHASES:
            if self.phase in (Phase.PROBE, Phase.BISECT):
                return Category.NOT_JUDGED
            return Category.PROGRAM_FAULT
        if cat is Category.BUG and self.symptom is not None and self.symptom.is_lesser:
            return Category.LESSER
        return cat

    @property
    def finding_kind(self) -> str | None:
        """What a campaign keeps a finding folder for: ``"bug"`` (a compiler bug, lesser
        included), ``"fault"`` (a death or hang outside the compiled phases, or the tool's
        limit), else None."""
        if self.is_bug:
            return "bug"
        return "fault" if self.verdict.is_process_failure else None

    @property
    def symptom(self) -> Symptom | None:
        v = self.verdict
        if v is Verdict.META_MISMATCH and self.evidence.get("kind") == "strides":
            return Symptom.WRONG_STRIDE
        if v is Verdict.CRASH and self.evidence.get("kind") == "data-dependent":
            return Symptom.DATA_DEPENDENT
        if v is Verdict.DIED:
            if self.evidence.get("memory_exceeded"):
                return Symptom.OOM
            return Symptom.SEGFAULT if self.evidence.get("signal") else Symptom.EXIT
        return _SYMPTOMS.get(v)

    @property
    def exit_code(self) -> int:
        """CLI exit status: 0 pass, 1 compiler bug, 2 the program cannot be judged."""
        return self.category.exit_code

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA_VERSION,
            "program": self.program,
            "digest": self.digest,
            "verdict": self.verdict.value,
            "is_bug": self.is_bug,
            "symptom": self.symptom.value if self.symptom else None,
            "phase": self.phase.value if self.phase else None,
            "stage": self.stage.value if self.stage else None,
            "reason": self.reason,
            "evidence": self.evidence,
            "ladder": self.ladder,
            "bisect": self.bisect,
            "options": self.options,
            "timings": self.timings,
            "log_tail": self.log_tail,
            "torch": self.torch,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CheckResult:
        return cls(
            verdict=Verdict(d["verdict"]),
            phase=Phase(d["phase"]) if d.get("phase") else None,
            reason=d.get("reason", ""),
            evidence=d.get("evidence") or {},
            stage=Stage(d["stage"]) if d.get("stage") else None,
            ladder=d.get("ladder") or {},
            bisect=d.get("bisect"),
            program=d.get("program", ""),
            digest=d.get("digest", ""),
            options=d.get("options") or {},
            timings=d.get("timings") or {},
            log_tail=d.get("log_tail", ""),
            torch=d.get("torch", ""),
        )
