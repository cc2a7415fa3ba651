"""The cache probe (``check.cache_probe``): a failure only an on-disk compile cache makes.

A real cache fault, no injection: torch 2.13's AOTAutograd cache key does not say whether the
inputs alias (PR #184694), so the artifact compiled for two non-aliasing inputs is served to
the same function called with two overlapping views of one base, and the mutation of one is
not seen through the other. A fresh compile is right.
"""

import pytest

from torchsmith import CheckOptions, Stage, Verdict, check_program
from torchsmith.check import CACHES_OFF, CACHES_OFF_RUNG
from torchsmith.execute import protocol
from torchsmith.execute.worker import Worker
from torchsmith.program.load import program_from_source

FN = """import torch


def fn(x, y):
    x.add_(1.0)
    return x * 2 + y.sum()


def get_inputs():
    base = torch.arange(12.0)
    return [base[:6].view(2, 3){copy}, base[3:9].view(2, 3){copy}]
"""


@pytest.fixture
def cached_worker(tmp_path):
    env = {**protocol.worker_env(), "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "cache")}
    w = Worker(memory_mb=8192, env=env, log_dir=tmp_path / "log")
    yield w
    w.close()


def test_a_failure_from_the_cache_is_the_caches_and_a_fresh_one_is_not(cached_worker):
    plain = program_from_source(FN.format(copy=".clone()"), "plain_inputs")
    aliased = program_from_source(FN.format(copy=""), "aliased_inputs")
    first = check_program(plain, CheckOptions(), cached_worker)
    assert first.verdict is Verdict.PASS  # compiled fresh, and its artifact cached
    r = check_program(aliased, CheckOptions(), cached_worker)
    assert r.verdict is Verdict.MISMATCH and r.stage is Stage.CACHE, (r.reason, r.ladder)
    assert r.ladder[CACHES_OFF_RUNG] == "pass" and r.ladder["aot_eager"] == "pass"
    assert "compile caches off" in r.evidence["compile_cache"]
    # with the caches off from the start, the same program passes and nothing is probed
    off = check_program(aliased, CheckOptions(config={CACHES_OFF: True}), cached_worker)
    assert off.verdict is Verdict.PASS and not off.ladder
