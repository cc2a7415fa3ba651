"""The ``opinfo`` family through the real pipeline: eager-checked in a worker by the generator,
then checked (eager twice, float64 reference, compiled) by ``check_program``: never ``invalid``."""

from __future__ import annotations

import pytest

from torchsmith.check import check_eager, check_program
from torchsmith.generate.opinfo.generator import OpInfoGenerator
from torchsmith.generate.protocol import GenContext
from torchsmith.options import CheckOptions
from torchsmith.verdict import Verdict


@pytest.mark.slow
def test_opinfo_programs_are_never_invalid(worker):
    options = CheckOptions(timeout=300.0, localize=False)
    gen = OpInfoGenerator()
    ctx = GenContext(eager_check=lambda p: check_eager(p, options, worker))
    verdicts = {}
    for seed in range(5):
        program = gen.generate(seed, ctx)
        assert program is not None, (seed, gen.stats.to_dict())
        result = check_program(program, options, worker)
        verdicts[seed] = (dict(n.split("=", 1) for n in program.notes), result.verdict.value)
        assert result.verdict is not Verdict.INVALID, (seed, result.reason, program.source)
    assert gen.stats.programs == 5
