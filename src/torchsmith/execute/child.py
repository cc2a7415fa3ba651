"""The worker process itself: imports torch once, then runs job after job sent by the parent.

``python -m torchsmith.execute.child``. It reads :class:`~torchsmith.execute.protocol.Request`
lines on stdin and answers on a private pipe (its original stdout; fd 1 is re-pointed at
stderr, so the program's own prints land in the worker log, never in the protocol). The
messages are the protocol module's; what a job does is the judge's
(:mod:`torchsmith.oracle.jobs`) or, for ``call``, the named function's.

Between jobs it clears state that leaks from one program to the next: Dynamo's caches and
counters (``torch._dynamo.reset()``), the program module, the default dtype and grad mode. It
exits when its parent goes away, so a worker stuck in a hung program never outlives a campaign
killed with SIGKILL.
"""

from __future__ import annotations

import faulthandler
import importlib
import os
import signal
import sys
import threading
import time
from typing import Any, TextIO

from torchsmith.execute import protocol
from torchsmith.execute.protocol import Request


def _setup_streams() -> TextIO:
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # program prints land in the log, never in the protocol
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    return proto


def _reset_state() -> None:
    import torch
    from torch._dynamo.utils import counters

    from torchsmith.oracle.runtime import PROGRAM_MODULE

    torch._dynamo.reset()
    counters.clear()
    sys.modules.pop(PROGRAM_MODULE, None)
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)


def resolve_function(name: str) -> Any:
    """``"package.module:function"`` -> the function."""
    modname, fname = name.rsplit(":", 1)
    return getattr(importlib.import_module(modname), fname)


def handle(request: Request, emit_phase: Any) -> dict[str, Any]:
    if request.kind == "ping":
        import torch

        return {"pong": True, "torch": torch.__version__, "pid": os.getpid()}
    from torchsmith.oracle import jobs

    program, options = request.program, request.options
    assert options is not None
    if request.kind == "call":
        fn = resolve_function(request.function or "")
        return fn(program, options, emit_phase, **request.kwargs)
    assert program is not None
    if request.kind == "check":
        return jobs.run_check(program, options, emit_phase, backend=request.backend)
    if request.kind == "eager":
        return jobs.run_check(program, options, emit_phase, eager_only=True)
    return jobs.run_bisect(program, options, emit_phase, request.failing or "")


def _watch_parent() -> None:
    """Exit when the parent goes away (a campaign killed by SIGKILL): a worker stuck in a hung
    program would otherwise never read the end of its stdin and live on as an orphan."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                try:  # the worker leads its process group: take the program's children too
                    os.killpg(os.getpgid(0), signal.SIGKILL)
                finally:
                    os._exit(70)

    threading.Thread(target=watch, name="torchsmith-parent-watch", daemon=True).start()


class MemoryWatch:
    """The worker's own guard on its memory cap, next to the parent's: a program that
    allocates faster than a loaded machine lets the parent poll would otherwise grow until the
    kernel's OOM killer takes the worker, a death that says nothing about memory. Every
    ``PERIOD`` seconds it reads its resident memory; past the job's cap it exits with
    :data:`~torchsmith.execute.protocol.MEMORY_EXIT`, which the parent reads as the cap."""

    PERIOD = 0.02

    def __init__(self) -> None:
        self.cap_mb = 0.0

    def start(self) -> None:
        from torchsmith.execute.worker import rss_mb

        pid = os.getpid()

        def watch() -> None:
            while True:
                time.sleep(self.PERIOD)
                if self.cap_mb and rss_mb(pid) > self.cap_mb:
                    os._exit(protocol.MEMORY_EXIT)

        threading.Thread(target=watch, name="torchsmith-memory-watch", daemon=True).start()


def main() -> None:
    proto = _setup_streams()
    faulthandler.enable(all_threads=False)  # a segfault's Python stack lands in the log (dedup)
    _watch_parent()
    memory = MemoryWatch()
    memory.start()
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    import torch  # pay the imports once, before the first job: a job's timeout is the program's

    from torchsmith.execute import kernel_batch
    from torchsmith.oracle import jobs, runtime  # noqa: F401

    kernel_batch.install()

    proto.write(protocol.ready_message(os.getpid(), torch.__version__))
    for line in sys.stdin:
        if not line.strip():
            continue
        rid: Any = None
        try:
            rid, request = Request.from_line(line)
            memory.cap_mb = protocol.memory_cap(line)

            def emit_phase(phase: Any, rid: Any = rid) -> None:
                proto.write(protocol.phase_message(rid, str(phase.value)))

            print(f"[torchsmith-worker] job {rid} {request.kind}", file=sys.stderr, flush=True)
            _reset_state()
            text = protocol.result_message(rid, handle(request, emit_phase))
        except Exception as e:
            text = protocol.error_message(getattr(e, "rid", rid), e)
        broken = runtime.device_fault()
        if broken:  # every later job here would fail the same way: the parent starts a fresh one
            print(f"[torchsmith-worker] retiring: {broken}", file=sys.stderr, flush=True)
        proto.write(protocol.with_retire(text, broken))
        sys.stderr.flush()
        if broken:
            break


if __name__ == "__main__":
    main()
