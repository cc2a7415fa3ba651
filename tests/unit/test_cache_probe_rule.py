"""The cache probe's rule (``check.cache_probe``), parent side only: the worker's answers are
scripted (what a fresh and a cached compile gave), so each branch is tested without compiling.
The real cache fault is ``tests/integration/test_cache_probe.py``'s."""

from __future__ import annotations

import pytest

from torchsmith.check import CACHES_OFF, CACHES_OFF_RUNG, cache_probe
from torchsmith.execute.protocol import JobOutcome
from torchsmith.options import CheckOptions
from torchsmith.program.load import program_from_source
from torchsmith.verdict import CheckResult, Stage, Verdict

PROGRAM = program_from_source(
    "import torch\n\n\ndef fn(x):\n    return x + 1\n\n\ndef get_inputs():\n"
    "    return [torch.ones(2)]\n",
    "p",
)


class ScriptedWorker:
    """Answers each job with the next verdict; records whether the caches were off."""

    def __init__(self, *answers: str) -> None:
        self.answers, self.caches_off = list(answers), []

    def run(self, request, timeout, memory_mb=None) -> JobOutcome:
        self.caches_off.append(bool(request.options.config.get(CACHES_OFF)))
        answer = self.answers.pop(0)
        if answer == "error":
            return JobOutcome(status="error", error="KeyError: no entry 'force_disable_caches'")
        return JobOutcome(status="result", result={"verdict": answer, "phase": "compare"})


def failure(stage: Stage = Stage.INDUCTOR) -> CheckResult:
    r = CheckResult(Verdict.MISMATCH, reason="off fp64", stage=stage)
    r.ladder = {"inductor": "mismatch"}
    return r


@pytest.mark.parametrize(
    ("answers", "stage", "rung", "jobs"),
    [
        (("pass", "mismatch"), Stage.CACHE, "pass", [True, False]),  # the cache's
        (("mismatch",), Stage.INDUCTOR, "mismatch", [True]),  # a fresh compile fails too
        (("pass", "pass"), Stage.INDUCTOR, "pass", [True, False]),  # flaky: not the cache's
        (("crash",), Stage.INDUCTOR, "crash", [True]),  # another failure: not this one's cause
        (("error",), Stage.INDUCTOR, "not run", [True]),  # a torch without the switch
    ],
)
def test_the_stage_is_the_cache_only_when_a_fresh_compile_passes_and_a_cached_one_fails(
    answers, stage, rung, jobs
):
    worker = ScriptedWorker(*answers)
    r = failure()
    cache_probe(PROGRAM, CheckOptions(), worker, r)
    assert r.stage is stage and r.ladder[CACHES_OFF_RUNG] == rung
    assert worker.caches_off == jobs and not worker.answers
    assert ("compile_cache" in r.evidence) == (stage is Stage.CACHE)


@pytest.mark.parametrize(
    ("stage", "options"),
    [
        (Stage.DYNAMO, CheckOptions()),  # no cache before Inductor's rung
        (Stage.INDUCTOR, CheckOptions(backend="aot_eager")),
        (Stage.INDUCTOR, CheckOptions(config={CACHES_OFF: True})),  # nothing to take away
    ],
)
def test_nothing_is_probed_off_inductor_or_with_the_caches_off(stage, options):
    worker = ScriptedWorker()
    r = failure(stage)
    cache_probe(PROGRAM, options, worker, r)
    assert r.stage is stage and CACHES_OFF_RUNG not in r.ladder and worker.caches_off == []
