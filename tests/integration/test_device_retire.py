"""A worker whose accelerator context is spent retires after the job that spent it.

On CUDA a kernel's illegal or misaligned address is sticky: every later job of the same
process fails with it (an H100 campaign lost 1948 programs to one such kernel). The child
checks its context after each job (:func:`torchsmith.oracle.runtime.device_fault`) and says so
in its message; the parent then replaces the process before the next job. Without a GPU the
fault is simulated inside the real child: the job below replaces ``device_fault`` there, so
everything from the child's message to the parent's fresh process is the real path
(``tests/gpu`` does it with a real device-side fault).
"""

from __future__ import annotations

import os
from typing import Any

from torchsmith.execute.protocol import Request
from torchsmith.execute.worker import Worker
from torchsmith.options import CheckOptions

SPEND = "tests.integration.test_device_retire:spend_context"
PID = "tests.integration.test_device_retire:pid"


def spend_context(program: Any, options: Any, emit_phase: Any) -> dict:
    """Worker side: from now on this process reports a spent CUDA context."""
    from torchsmith.oracle import runtime

    runtime.device_fault = lambda: "AcceleratorError: CUDA error: misaligned address (simulated)"
    return {"pid": os.getpid()}


def pid(program: Any, options: Any, emit_phase: Any) -> dict:
    return {"pid": os.getpid()}


def test_a_spent_context_retires_the_worker_and_the_next_job_runs_in_a_fresh_one(tmp_path):
    with Worker(log_dir=tmp_path) as w:
        first = w.run(Request.call(PID, None, CheckOptions()), 120)
        assert first.status == "result" and not first.retire
        assert w.alive  # a healthy job keeps its process
        spent = w.run(Request.call(SPEND, None, CheckOptions()), 120)
        assert spent.status == "result", spent.error  # the job's own result still counts
        assert "misaligned address" in spent.retire
        assert not w.alive and w.retired == 1
        after = w.run(Request.call(PID, None, CheckOptions()), 120)
        assert after.status == "result" and not after.retire
        assert after.result["pid"] != spent.result["pid"] == first.result["pid"]
        assert w.starts == 2
    assert "retiring: AcceleratorError" in (tmp_path / "worker.log").read_text()


def test_on_the_cpu_no_context_is_ever_spent():
    from torchsmith.oracle import runtime

    assert runtime.device_fault() is None
    runtime.synchronize("cpu")  # nothing to wait for
