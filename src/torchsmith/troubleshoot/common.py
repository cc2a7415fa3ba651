"""Shared pieces of the troubleshooting commands: log capture, the worker round trip, tables.

The in-worker half (:func:`capture_logs`, :func:`loaded_model`) runs program code and torch; the
parent half (:func:`run_job`, :func:`table`) never imports torch, so the CLI stays light.
"""

from __future__ import annotations

import contextlib
import linecache
import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from torchsmith.execute.protocol import Request
from torchsmith.execute.worker import Worker
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program

SCHEMA = 1

#: Dynamo names the continuation of a frame after a graph break like this; users know `forward`.
_RESUME_RE = re.compile(r"^torch_dynamo_resume_in_(?P<fn>.+?)_at_\d+$")


class TroubleshootError(RuntimeError):
    """The command could not produce its report (bad program, hang, worker death): exit 2."""


# -- in the worker ---------------------------------------------------------------------------------
@dataclass
class LogRecord:
    """One torch log message as the troubleshooting commands keep it."""

    logger: str
    level: str
    message: str
    compile_id: str = ""


class ListHandler(logging.Handler):
    """Collects log records as :class:`LogRecord` into a list (in the worker)."""

    def __init__(self, sink: list[LogRecord]) -> None:
        super().__init__(level=logging.DEBUG)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()
        except Exception:  # a broken format string must not break the run
            message = str(record.msg)
        cid = str(getattr(record, "traceid", "") or "").strip().strip("[]")
        self.sink.append(LogRecord(record.name, record.levelname, message, cid))


@contextlib.contextmanager
def capture_logs(**artifacts: bool) -> Iterator[list[LogRecord]]:
    """Turn on torch log artifacts (``graph_breaks``, ``recompiles``...) and collect the records.

    Artifact loggers (``torch._dynamo.guards.__recompiles``) propagate to ``torch._dynamo``, where
    a handler collects them, together with Dynamo's warnings (the recompile-limit message). The
    log settings go back to their defaults afterwards, since the worker runs other jobs next.
    """
    import torch

    records: list[LogRecord] = []
    handler = ListHandler(records)
    logger = logging.getLogger("torch._dynamo")
    torch._logging.set_logs(**artifacts)
    logger.addHandler(handler)
    try:
        yield records
    finally:
        logger.removeHandler(handler)
        torch._logging.set_logs()


def compile_target(loaded: Any, model: Any, options: CheckOptions, **compile_kwargs: Any) -> Any:
    """``torch.compile(model, **compile_kwargs)``; with ``options.only`` (``--only NAME``) the
    model itself with just the named part compiled (:mod:`torchsmith.oracle.only`).

    Raises :class:`~torchsmith.oracle.runtime.ProgramLoadError` for a name that resolves to
    nothing (the jobs report it as a program that does not load: exit 2)."""
    import torch

    if not options.only:
        return torch.compile(model, **compile_kwargs)
    from torchsmith.oracle.only import OnlyError, compile_only
    from torchsmith.oracle.runtime import ProgramLoadError

    try:
        return compile_only(model, loaded.module.__dict__, options.only, compile_kwargs)
    except OnlyError as e:
        raise ProgramLoadError(str(e)) from e


def report_header(
    schema: int, program: Program, options: CheckOptions, *keys: str
) -> dict[str, Any]:
    """The fields every troubleshooting report starts with: schema, program, backend, ``only``,
    the option fields named in ``keys`` (``mode``, ``dynamic``, ...) and ``error`` (None)."""
    head: dict[str, Any] = {"schema": schema, "program": program.name, "backend": options.backend}
    head.update({k: getattr(options, k) for k in keys})
    head["only"] = options.only
    head["error"] = None
    return head


def load_and_compile(
    program: Program, options: CheckOptions, dtype: Any, emit_phase: Any
) -> tuple[Any, Any, Any, Any]:
    """Load ``program``, build its model and inputs and compile it (``--only`` honoured):
    ``(loaded, model, args, compiled)``, with the load and compiled phases emitted. Raises
    :class:`~torchsmith.oracle.runtime.ProgramLoadError` when it does not load."""
    from torchsmith.oracle import runtime
    from torchsmith.verdict import Phase

    emit_phase(Phase.LOAD)
    loaded = runtime.load(program, options.seed)
    model = runtime.build_model(loaded, options.seed, options.device, dtype)
    args = runtime.prepare_inputs(loaded.inputs, options.device, dtype, grad=options.grad)
    compiled = compile_target(loaded, model, options, **options.compile_kwargs())
    emit_phase(Phase.COMPILED)
    return loaded, model, args, compiled


def clean_function_name(name: str) -> str:
    """``torch_dynamo_resume_in_forward_at_12`` -> ``forward`` (Dynamo's continuation frames)."""
    m = _RESUME_RE.match(name)
    return m.group("fn") if m else name


def source_line(program: Program, filename: str, lineno: int | None, program_file: str) -> str:
    """The stripped source line at ``filename:lineno``; program lines come from its canonical text."""
    if not lineno:
        return ""
    if filename == program_file:
        lines = program.source.splitlines()
        return lines[lineno - 1].strip() if 0 < lineno <= len(lines) else ""
    return linecache.getline(filename, lineno).strip()


def load_error_result(error: Exception) -> dict[str, Any]:
    """What a job returns when the program itself cannot be loaded (the parent raises on it)."""
    return {"schema": SCHEMA, "load_error": str(error)}


def exception_info(e: BaseException) -> dict[str, str]:
    msg = str(e)
    first = next((ln.strip() for ln in msg.splitlines() if ln.strip()), "")
    return {"type": type(e).__name__, "message": msg[:4000], "summary": first[:300]}


# -- in the parent ---------------------------------------------------------------------------------
def run_job(
    function: str,
    program: Program,
    options: CheckOptions,
    worker: Worker | None = None,
    **kwargs: Any,
) -> dict[str, Any]:
    """Run ``module:function`` on ``program`` in a worker (a fresh one unless given); its dict.

    Raises :class:`TroubleshootError` when the program does not load, hangs past
    ``options.timeout``, or the worker dies.
    """
    own = worker is None
    worker = worker or Worker(memory_mb=options.memory_mb)
    try:
        outcome = worker.run(
            Request.call(function, program, options, **kwargs), options.timeout, options.memory_mb
        )
    finally:
        if own:
            worker.close()
    msg = outcome.failure(program.name)
    if msg:
        raise TroubleshootError(msg)
    result = outcome.result or {}
    if result.get("load_error"):
        raise TroubleshootError(f"{program.name}: {result['load_error']}")
    return result


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str], indent: str = "  ") -> str:
    """A plain, left-aligned text table (the last column is never padded)."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    out = []
    for r in cells:
        parts = [c.ljust(widths[i]) for i, c in enumerate(r[:-1])] + [r[-1]]
        out.append((indent + "  ".join(parts)).rstrip())
    return "\n".join(out)


def short_path(path: str) -> str:
    """The last two components of a path: enough to find a line, short enough for a table."""
    parts = path.replace("\\", "/").rsplit("/", 2)
    return "/".join(parts[-2:]) if len(parts) > 2 else path
