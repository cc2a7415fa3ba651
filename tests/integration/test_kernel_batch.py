"""Batched kernel builds in a real worker: the same values, the same compile errors, one g++ run.

The job below runs inside the session's worker (which installed the batching at start-up) and
compiles the same function twice, batched and unbatched (the switch is read per kernel).
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from torchsmith.execute.protocol import Request
from torchsmith.options import CheckOptions

JOB = "tests.integration.test_kernel_batch:compile_both_ways"


def _f(x, w):
    import torch

    a = torch.relu(x) + 1.5
    b = a.sum(1)
    c = torch.sigmoid(a @ w)
    return b, torch.cumsum(c, 0), torch.softmax(c * 3, -1)


def compile_both_ways(program: Any, options: Any, emit_phase: Any, fault: str | None) -> dict:
    """Worker side: compile :func:`_f` batched, then unbatched; what each gave."""
    import torch
    import torch._inductor.config as ic

    from torchsmith.execute import kernel_batch as kb

    torch.manual_seed(0)
    args = (torch.randn(8, 16), torch.randn(16, 5))
    out: dict[str, Any] = {"installed": kb.installed()}
    values = {}
    for mode in ("1", "0"):
        os.environ[kb.BATCH_VAR] = mode
        torch._dynamo.reset()
        before = dict(kb.stats)
        try:
            with ic.patch({"cpp.inject_relu_bug_TESTING_ONLY": fault, "fx_graph_cache": False}):
                values[mode] = torch.compile(_f)(*args)
            out[mode] = {"error": None}
        except Exception as e:  # noqa: BLE001 - the error is what is compared
            out[mode] = {"error": type(e).__name__, "message": str(e)}
        out[mode]["stats"] = {k: kb.stats[k] - before[k] for k in kb.stats}
    os.environ.pop(kb.BATCH_VAR, None)
    if len(values) == 2:
        out["bitwise_equal"] = all(torch.equal(a, b) for a, b in zip(values["1"], values["0"]))
        out["eager_close"] = all(
            torch.allclose(a, b, atol=1e-5) for a, b in zip(values["1"], _f(*args))
        )
    return out


def _run(worker, fault):
    outcome = worker.run(Request.call(JOB, None, CheckOptions(), fault=fault), 300)
    assert outcome.status == "result", (outcome.status, outcome.error)
    return outcome.result


def test_a_graphs_kernels_build_in_one_run_and_compute_what_they_compute_alone(worker):
    r = _run(worker, None)
    assert r["installed"] is True
    assert r["1"]["error"] is None and r["0"]["error"] is None
    assert r["1"]["stats"]["batches"] == 1 and r["1"]["stats"]["batched_kernels"] >= 2
    assert r["0"]["stats"]["batches"] == 0
    assert r["bitwise_equal"] and r["eager_close"]


def test_a_planted_wrong_value_survives_batching(worker):
    r = _run(worker, "accuracy")
    assert r["1"]["stats"]["batches"] == 1
    assert r["bitwise_equal"] and not r["eager_close"]


@pytest.mark.parametrize("fault", ["compile_error", "runtime_error"])
def test_a_kernel_that_fails_fails_the_same_way_batched(worker, fault):
    r = _run(worker, fault)
    batched, alone = r["1"], r["0"]
    assert batched["error"] and batched["error"] == alone["error"]
    # The same first line (the kind of failure), whatever paths the rest names.
    assert batched["message"].splitlines()[0] == alone["message"].splitlines()[0]
    if fault == "compile_error":  # the batch did not compile: every kernel was built alone
        assert batched["stats"]["failed_batches"] == 1
