"""The worker process: imports torch once, then runs job after job sent by the parent.

Protocol (JSON lines): the parent writes one request per line on the worker's stdin,
``{"id": N, "kind": "check" | "eager" | "bisect" | "call" | "ping", ...}``. The worker answers on a private pipe (the
original stdout; the program's own prints go to stderr, which the parent logs) with
``{"id": N, "type": "phase", "phase": ...}`` messages as it goes and one
``{"id": N, "type": "result", "result": {...}}`` at the end. If the worker dies or hangs, the
last phase message tells the parent where; see :mod:`torchsmith.execute.pool`.

Between jobs the worker clears state that leaks from one program to the next: Dynamo's caches
and counters (``torch._dynamo.reset()``), the program module, the default dtype, grad mode and
the RNG state.
"""

from __future__ import annotations

import faulthandler
import json
import os
import sys
import threading
import time
import traceback
from typing import Any


def _setup_streams() -> Any:
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # program prints land in the log, never in the protocol
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    return proto


def _reset_state() -> None:
    import torch

    from torchsmith.execute.runtime import PROGRAM_MODULE

    torch._dynamo.reset()
    from torch._dynamo.utils import counters

    counters.clear()
    sys.modules.pop(PROGRAM_MODULE, None)
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)


def handle(request: dict[str, Any], emit_phase: Any) -> dict[str, Any]:
    from torchsmith.execute import checkjob
    from torchsmith.options import CheckOptions
    from torchsmith.program.format import Program

    kind = request["kind"]
    if kind == "ping":
        import torch

        return {"pong": True, "torch": torch.__version__, "pid": os.getpid()}
    program = Program.from_dict(request["program"])
    options = CheckOptions.from_dict(request["options"])
    if kind == "check":
        return checkjob.run_check(program, options, emit_phase, backend=request.get("backend"))
    if kind == "eager":
        return checkjob.run_check(program, options, emit_phase, eager_only=True)
    if kind == "bisect":
        return checkjob.run_bisect(program, options, emit_phase, request["failing"])
    if kind == "call":  # a registered in-worker function, for tools built on the worker
        import importlib

        modname, fname = request["function"].rsplit(":", 1)
        fn = getattr(importlib.import_module(modname), fname)
        return fn(program, options, emit_phase, **request.get("kwargs", {}))
    raise ValueError(f"unknown job kind {kind!r}")


def _watch_parent() -> None:
    """Exit when the parent goes away (a campaign killed by SIGKILL): a worker stuck in a hung
    program would otherwise never read the end of its stdin and live on as an orphan."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(70)

    threading.Thread(target=watch, name="torchsmith-parent-watch", daemon=True).start()


def main() -> None:
    proto = _setup_streams()
    faulthandler.enable(all_threads=False)  # a segfault's Python stack lands in the log (dedup)
    _watch_parent()
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    import torch  # noqa: F401  (pay the import once, before the first job)

    proto.write(json.dumps({"type": "ready", "pid": os.getpid()}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        rid = request.get("id")

        def emit_phase(phase: Any, rid: Any = rid) -> None:
            proto.write(json.dumps({"id": rid, "type": "phase", "phase": str(phase.value)}) + "\n")

        print(f"[torchsmith-worker] job {rid} {request.get('kind')}", file=sys.stderr, flush=True)
        try:
            _reset_state()
            result = handle(request, emit_phase)
            msg = {"id": rid, "type": "result", "result": result}
        except Exception as e:
            msg = {
                "id": rid,
                "type": "error",
                "error": f"{type(e).__name__}: {e}",
                "traceback": traceback.format_exc()[-4000:],
            }
        try:
            text = json.dumps(msg, default=str)
        except (TypeError, ValueError) as e:
            text = json.dumps({"id": rid, "type": "error", "error": f"unserializable result: {e}"})
        proto.write(text + "\n")
        sys.stderr.flush()


if __name__ == "__main__":
    main()
