"""LLM and mutation generators with real workers: the repair loop sends the worker's exact
``invalid`` explanation back over HTTP, Inductor coverage comes back from a ``call`` job, and every
mutant (each operator's included) is valid in eager."""

from __future__ import annotations

from collections import Counter

import pytest

from torchsmith.check import check_eager
from torchsmith.generate.coverage import WorkerClient
from torchsmith.generate.llm.generator import LLMGenerator
from torchsmith.generate.mutate.generator import MutationGenerator
from torchsmith.generate.mutate.operators import MUTATORS
from torchsmith.generate.protocol import GenContext
from torchsmith.options import CheckOptions
from torchsmith.program.load import program_from_source
from torchsmith.verdict import Verdict

from ..unit.test_llm import INVALID, MM_REASON, PROSE, REPAIRED, ScriptedChatServer

ATTENTION = """\
import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, q, k, v):
        s = q @ k.transpose(-2, -1) / 4.0
        return s.softmax(dim=-1) @ v


def get_inputs():
    return [torch.randn(2, 2, 8, 16), torch.randn(2, 2, 8, 16), torch.randn(2, 2, 8, 16)]
"""


def test_llm_repair_loop_with_the_worker_check(worker):
    real = check_eager(program_from_source(INVALID, name="p"), CheckOptions(), worker)
    assert real.verdict is Verdict.INVALID and real.reason == MM_REASON
    replies = [INVALID, f"Here is the fix.\n```python\n{REPAIRED}```", PROSE]
    with ScriptedChatServer(replies) as server:
        gen = LLMGenerator(
            worker=worker,
            base_url=server.base_url,
            model="scripted",
            targets="reductions",
            feedback="inductor",
            max_retries=0,
            request_timeout=30,
        )
        ctx = GenContext()  # no campaign check: the generator's own client (the shared worker)
        p1 = gen.generate(11, ctx)
        p2 = gen.generate(12, ctx)
    assert len(server.requests) == 3
    repair_prompt = server.requests[1]["messages"][-1]["content"]
    assert MM_REASON in repair_prompt and "v1 = torch.mm(x1, inp)" in repair_prompt
    assert p1 is not None and "inp.t()" in p1.source
    assert p2 is not None and "logsumexp" in p2.source
    for p in (p1, p2):
        assert check_eager(p, CheckOptions(), worker).verdict is Verdict.PASS
    s = gen.stats
    assert (s.programs, s.valid_first_try, s.valid_after_repair, s.repair_requests) == (2, 1, 2, 1)
    assert s.problems == Counter({"invalid": 1}) and s.tokens == 3 * 200
    assert s.feedback_seconds > 0
    cov = gen.coverage.counts
    assert cov["op:var_mean"] == 1 and cov["op:mm"] == 1
    assert any(k.startswith("lowering:") for k in cov)


def test_inductor_coverage_from_a_call_job(worker):
    feats = WorkerClient(worker).coverage(program_from_source(ATTENTION, name="attn"))
    assert feats["inductor:fuse_attention"] >= 1
    assert any(k.startswith(("lowering:", "fallback:")) for k in feats)


def test_every_mutant_is_valid_in_eager(worker):
    gen = MutationGenerator(worker=worker, generated=12)
    mutants = [gen.generate(seed, GenContext()) for seed in range(30)]
    got = [m for m in mutants if m is not None]
    assert len(got) >= 27
    assert gen.stats.valid == len(got) and gen.stats.checked >= len(got)
    for m in got:
        assert check_eager(m, CheckOptions(), worker).verdict is Verdict.PASS, m.source


@pytest.mark.parametrize("name", sorted(MUTATORS))
def test_each_operator_yields_valid_mutants(worker, name):
    gen = MutationGenerator(worker=worker, generated=12, operators=name, max_chain=1)
    found = [gen.generate(seed, GenContext()) for seed in range(4)]
    valid = [m for m in found if m is not None]
    assert valid, f"{name}: no valid mutant in 4 seeds ({dict(gen.stats.verdicts)})"
    for m in valid:
        assert all(d.startswith(f"{name}:") for d in m.notes[1:])
        assert check_eager(m, CheckOptions(), worker).verdict is Verdict.PASS
