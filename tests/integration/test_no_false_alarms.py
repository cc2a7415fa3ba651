"""Compiled code that legitimately reorders float work must pass, input seed after input seed."""

import pytest

from torchsmith import CheckOptions, Verdict, check_program, load_program

from .conftest import DATA

SEEDS = range(50)


@pytest.mark.parametrize("half", [0, 1])
@pytest.mark.parametrize("name", ["big_sum", "matmul_chain", "softmax_large", "norms"])
def test_reordered_float_work_passes_on_50_seeds(worker, name, half):
    """The 50 seeds in two halves (alternate seeds), so the suite's two workers share them."""
    program = load_program(DATA / "reorder" / f"{name}.py")
    bad = []
    for seed in SEEDS[half::2]:
        r = check_program(program, CheckOptions(seed=seed, localize=False), worker)
        if r.verdict is not Verdict.PASS:
            bad.append((seed, r.verdict.value, r.reason))
    assert not bad
