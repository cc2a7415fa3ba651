"""Stage localization: walk the backend ladder and name the first rung that fails the same way.

The ladder is PyTorch's own ablation (``programming_model.reporting_issues``): ``eager`` runs
Dynamo alone, ``aot_eager`` adds AOTAutograd, ``aot_eager_decomp_partition`` adds decompositions
and the partitioner, ``inductor`` adds Inductor. A user backend outside the ladder is its last rung.
The deployment path (``aoti``) has its own ladder, :data:`EXPORT_LADDER`.
Every rung is its own crash-safe worker job, so a rung that segfaults or hangs cannot hide the
others.
"""

from __future__ import annotations

from collections.abc import Callable

from torchsmith.dedup import failure_key, same_failure_key
from torchsmith.verdict import CheckResult, Stage, Verdict

LADDER = ("eager", "aot_eager", "aot_eager_decomp_partition", "inductor")
#: The deployment path's ladder (``oracle/export_path.py``): export, decompositions, the
#: AOTInductor build (the package is built, the decomposed program runs eagerly), the package.
EXPORT_LADDER = ("export", "export_decomp", "aoti_compile", "aoti")
RUNG_STAGE = {
    "eager": Stage.DYNAMO,
    "aot_eager": Stage.AOTAUTOGRAD,
    "aot_eager_decomp_partition": Stage.DECOMP,
    "inductor": Stage.INDUCTOR,
    "export": Stage.EXPORT,
    "export_decomp": Stage.EXPORT_DECOMP,
    "aoti_compile": Stage.AOTI_COMPILE,
    "aoti": Stage.AOTI_RUN,
}


def ladder_for(backend: str) -> tuple[str, ...]:
    """The rungs to try for a failure seen with ``backend``, ending with ``backend`` itself."""
    for ladder in (LADDER, EXPORT_LADDER):
        if backend in ladder:
            return ladder[: ladder.index(backend) + 1]
    return (*LADDER[:3], backend)


def stage_of(backend: str) -> Stage:
    return RUNG_STAGE.get(backend, Stage.BACKEND)


def same_failure(original: CheckResult, rung: CheckResult) -> bool:
    """A rung reproduces the failure when it is a compiler bug with the same verdict and, for
    a crash, the same exception type and message (:func:`torchsmith.dedup.failure_key`, the
    wrappers looked through: Inductor's ``BackendCompilerFailed`` around the decomposition
    rung's ``RuntimeError`` is that rung's failure): an
    earlier rung that raises something else (``backend="eager"`` on a region with gradients,
    #178520) has its own failure and does not make a C++ wrapper's codegen error Dynamo's."""
    if not (rung.is_bug and rung.verdict is original.verdict):
        return False
    if original.verdict is Verdict.CRASH:
        return same_failure_key(failure_key(original), failure_key(rung))
    return True


def localize(
    original: CheckResult, backend: str, run_rung: Callable[[str], CheckResult]
) -> tuple[Stage, dict[str, str]]:
    """Name the stage of ``original`` (seen with ``backend``) by running ``run_rung`` per rung.

    Returns the stage and the ladder table (rung -> verdict). The last rung is ``backend``
    itself, whose verdict is already known and is not re-run. A failure no earlier rung
    reproduces belongs to the last rung's stage.
    """
    table: dict[str, str] = {}
    rungs = ladder_for(backend)
    for rung in rungs[:-1]:
        result = run_rung(rung)
        table[rung] = result.verdict.value
        if same_failure(original, result):
            for later in rungs[rungs.index(rung) + 1 :]:
                table[later] = "not run"
            table[backend] = original.verdict.value
            return stage_of(rung), table
    table[backend] = original.verdict.value
    return stage_of(backend), table
