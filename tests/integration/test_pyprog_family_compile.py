"""``python`` family programs through the real check (eager twice, fp64, Inductor) in the
session's worker: the first candidate of each seed, not filtered by the eager check, is valid
and deterministic (a compiler finding is allowed; a program the judge cannot use is not)."""

from __future__ import annotations

from torchsmith.check import check_program
from torchsmith.generate.python.generator import PythonGenerator
from torchsmith.options import CheckOptions
from torchsmith.verdict import Verdict


def test_five_seeds_are_valid_and_deterministic_under_the_real_check(worker):
    gen = PythonGenerator()
    verdicts = {}
    for seed in range(5):
        program = next(gen.candidates(seed))
        result = check_program(program, CheckOptions(timeout=180), worker)
        verdicts[seed] = (result.verdict.value, result.reason[:200])
        assert result.verdict not in (Verdict.INVALID, Verdict.NONDETERMINISTIC), (
            seed,
            result.reason,
            program.source,
        )
    assert verdicts
