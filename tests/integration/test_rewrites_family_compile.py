"""``rewrites`` family programs through the real check (eager twice, fp64, Inductor) in the
session's worker, and the coverage job (``WorkerClient.coverage``) showing that a program's
rewrite fired: the attention fusion, binary folding under freezing, the small-mm
decomposition, the partitioned scatter and the auto-chunker (on a torch that has them)."""

from __future__ import annotations

import pytest

from torchsmith.check import check_program, effective_options
from torchsmith.generate.coverage import WorkerClient
from torchsmith.generate.rewrites.catalog import build_catalog
from torchsmith.generate.rewrites.generator import RewritesGenerator
from torchsmith.options import CheckOptions
from torchsmith.verdict import Verdict


def test_four_seeds_are_valid_under_the_real_check(worker):
    gen = RewritesGenerator()
    for seed in range(4):
        program = next(gen.candidates(seed))
        result = check_program(program, CheckOptions(timeout=180), worker)
        assert result.verdict is not Verdict.INVALID, (seed, result.reason, program.source)


@pytest.mark.parametrize(
    ("entry", "counter"),
    [
        ("_sfdp_pattern_1", "inductor:fuse_attention"),
        ("folded_op", "inductor:binary_folding_conv"),
        ("decompose_mm", "inductor:decompose_mm"),
        ("create_replacement", "inductor:partitioned_scatter_applied"),
        ("auto_chunker", "metric:num_auto_chunking"),
    ],
)
def test_the_coverage_job_shows_the_rewrite_fired(worker, entry, counter):
    if entry not in build_catalog().entries:
        pytest.skip(f"{entry}: not in this torch")
    gen = RewritesGenerator(patterns=f"^{entry}$")
    seen = []
    for seed in range(5):  # (a seed may draw a deliberate near miss, or a known crash)
        program = next(gen.candidates(seed))
        options = effective_options(program, CheckOptions(timeout=180, localize=False))
        feats = WorkerClient(worker, options).coverage(program)
        seen.append(sorted(f for f in feats if f.startswith(("inductor:", "metric:"))))
        if feats.get(counter):
            return
    pytest.fail(f"{entry}: {counter} never fired: {seen}")
