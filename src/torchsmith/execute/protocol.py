"""The worker protocol, owned here: requests, replies, the worker's environment, and deaths.

Everything that crosses the pipe between a parent and a worker process is built and read by this
module and nowhere else:

* :class:`Request`: one job, written by the parent as one JSON line on the worker's stdin.
  ``kind`` is ``check`` (the differential check under one backend), ``eager`` (the eager half
  only), ``bisect`` (Inductor's ``CompilerBisector``), ``call`` (a named in-worker function,
  ``"package.module:function"``, for tools built on the worker) or ``ping``.
* Messages from the worker, one JSON line each on its private reply pipe: ``ready`` once at
  start, ``phase`` as each run of a job starts, then exactly one ``result`` or ``error`` (a
  torchsmith fault, never a verdict) per job.
* :class:`JobOutcome`: what the parent makes of one job: a result, an error, a timeout or a
  death, with the last phase the worker announced and the tail of its log.
* :func:`worker_env`: the environment a worker starts with (import path, its share of the
  cores, one Inductor compile thread, the linker), also for a worker under another Python (another torch).

Invariants: a request survives ``Request.from_line(request.to_line(rid))`` unchanged; every job
sent gets exactly one outcome; :meth:`JobOutcome.failure` is ``None`` exactly when a result came
back.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any

from torchsmith.execute import toolchain
from torchsmith.options import CheckOptions
from torchsmith.program.format import Program

#: The module a worker process runs (``python -m``).
CHILD_MODULE = "torchsmith.execute.child"

KINDS = ("check", "eager", "bisect", "call", "ping")
#: The exit status of a worker that stopped itself at its memory cap.
MEMORY_EXIT = 86


class ProtocolError(ValueError):
    """A request or message that does not follow the protocol."""


@dataclasses.dataclass(frozen=True)
class Request:
    """One job for a worker. Build it with the class methods; the worker reads it back whole."""

    kind: str
    program: Program | None = None
    options: CheckOptions | None = None
    backend: str | None = None  # check: the backend to compile with (default options.backend)
    failing: str | None = None  # bisect: the verdict that counts as failing
    function: str | None = None  # call: "package.module:function"
    kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)  # call: its keyword args

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ProtocolError(f"unknown job kind {self.kind!r}")
        if self.kind != "ping" and self.options is None:
            raise ProtocolError(f"a {self.kind} job needs options")
        if self.kind in ("check", "eager", "bisect") and self.program is None:
            raise ProtocolError(f"a {self.kind} job needs a program")
        if self.kind == "call" and (not self.function or ":" not in self.function):
            raise ProtocolError("a call job names its function as 'package.module:function'")

    @classmethod
    def check(cls, program: Program, options: CheckOptions, backend: str | None = None) -> Request:
        return cls("check", program, options, backend=backend)

    @classmethod
    def eager(cls, program: Program, options: CheckOptions) -> Request:
        return cls("eager", program, options)

    @classmethod
    def bisect(cls, program: Program, options: CheckOptions, failing: str) -> Request:
        return cls("bisect", program, options, failing=failing)

    @classmethod
    def call(
        cls,
        function: str,
        program: Program | None,
        options: CheckOptions,
        **kwargs: Any,
    ) -> Request:
        return cls("call", program, options, function=function, kwargs=kwargs)

    @classmethod
    def ping(cls) -> Request:
        return cls("ping")

    def to_line(self, rid: int, memory_mb: float = 0) -> str:
        """The JSON line for job ``rid``; ``memory_mb`` is the cap the job runs under (the
        worker watches it too, see :class:`torchsmith.execute.child.MemoryWatch`)."""
        d: dict[str, Any] = {"id": rid, "kind": self.kind}
        if memory_mb:
            d["memory_mb"] = memory_mb
        if self.program is not None:
            d["program"] = self.program.to_dict()
        if self.options is not None:
            d["options"] = self.options.to_dict()
        for key in ("backend", "failing", "function"):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        if self.kwargs:
            d["kwargs"] = self.kwargs
        return json.dumps(d) + "\n"

    @classmethod
    def from_line(cls, line: str) -> tuple[Any, Request]:
        """``(id, request)`` from one line the parent wrote."""
        try:
            d = json.loads(line)
        except json.JSONDecodeError as e:
            raise ProtocolError(f"not a JSON request: {e}") from None
        rid = d.get("id") if isinstance(d, dict) else None
        try:
            program = Program.from_dict(d["program"]) if d.get("program") else None
            options = CheckOptions.from_dict(d["options"]) if d.get("options") else None
            request = cls(
                kind=d.get("kind", ""),
                program=program,
                options=options,
                backend=d.get("backend"),
                failing=d.get("failing"),
                function=d.get("function"),
                kwargs=d.get("kwargs") or {},
            )
        except (ProtocolError, AttributeError, KeyError, TypeError, ValueError) as e:
            err = ProtocolError(f"bad request: {e}")
            err.rid = rid  # type: ignore[attr-defined]
            raise err from None
        return rid, request


def memory_cap(line: str) -> float:
    """The memory cap a request line carries (0: none)."""
    try:
        return float(json.loads(line).get("memory_mb") or 0)
    except (ValueError, AttributeError):
        return 0.0


# -- messages from the worker ----------------------------------------------------------------------
def ready_message(pid: int, torch_version: str) -> str:
    return json.dumps({"type": "ready", "pid": pid, "torch": torch_version}) + "\n"


def phase_message(rid: Any, phase: str) -> str:
    return json.dumps({"id": rid, "type": "phase", "phase": phase}) + "\n"


def result_message(rid: Any, result: dict[str, Any]) -> str:
    """The job's result; a result that cannot be serialized becomes an error message."""
    try:
        return json.dumps({"id": rid, "type": "result", "result": result}, default=str) + "\n"
    except (TypeError, ValueError) as e:
        return json.dumps({"id": rid, "type": "error", "error": f"unserializable result: {e}"})


def error_message(rid: Any, exc: BaseException) -> str:
    return (
        json.dumps(
            {
                "id": rid,
                "type": "error",
                "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc()[-4000:],
            },
            default=str,
        )
        + "\n"
    )


def with_retire(text: str, why: str | None) -> str:
    """A result or error message that also tells the parent this worker is spent (``why``:
    its accelerator context is broken, so every later job in it would fail the same way)."""
    if not why:
        return text
    msg = json.loads(text)
    msg["retire"] = why
    return json.dumps(msg, default=str) + "\n"


def read_message(line: bytes) -> dict[str, Any]:
    """A message the worker wrote; a line that is not JSON comes back as ``garbage``."""
    try:
        msg = json.loads(line)
    except json.JSONDecodeError:
        return {"type": "garbage", "text": line[:200].decode(errors="replace")}
    return msg if isinstance(msg, dict) else {"type": "garbage", "text": repr(msg)[:200]}


# -- outcomes ------------------------------------------------------------------------------------
@dataclasses.dataclass
class JobOutcome:
    """What came back from one job. ``status`` is result, error, timeout or died."""

    status: str
    result: dict[str, Any] | None = None
    phase: str | None = None  # the last phase the worker announced
    returncode: int | None = None
    signal: str | None = None
    memory_exceeded: bool = False
    peak_rss_mb: float = 0.0
    memory_mb: int = 0  # the cap the job ran under
    timeout: float = 0.0  # the wall-clock limit the job ran under
    error: str = ""
    log_tail: str = ""
    wall: float = 0.0
    retire: str = ""  # the worker said it is spent after this job (a broken CUDA context)

    @property
    def where(self) -> str:
        return f" while in phase {self.phase}" if self.phase else " before the first phase"

    def how_died(self) -> str:
        """``exceeded the memory cap of 2048 MiB``, ``was killed by SIGSEGV``, ``exited with
        code 3``: how a dead worker went, for a sentence about it."""
        if self.memory_exceeded:
            return f"exceeded the memory cap of {self.memory_mb} MiB and was killed"
        if self.signal:
            return f"was killed by {self.signal}"
        return f"exited with code {self.returncode}"

    def death_evidence(self) -> dict[str, Any]:
        return {
            "returncode": self.returncode,
            "signal": self.signal,
            "memory_exceeded": self.memory_exceeded,
            "peak_rss_mb": round(self.peak_rss_mb, 1),
        }

    def failure(self, what: str) -> str | None:
        """One sentence for a job that brought no result back (None when one did)."""
        if self.status == "result":
            return None
        if self.status == "timeout":
            return f"{what}: no result within {self.timeout:g} s{self.where}; the program may hang"
        if self.status == "died":
            return f"{what}: the worker {self.how_died()}{self.where}"
        return f"{what}: torchsmith failed inside the worker: {self.error.strip()[:2000]}"


# -- the worker's environment ------------------------------------------------------------------
def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _package_root() -> str:
    """The folder that holds the ``torchsmith`` package."""
    return str(Path(__file__).resolve().parents[2])


_foreign_roots: dict[str, str] = {}


def _foreign_import_root() -> str:
    """A folder holding only a link to this ``torchsmith`` package: the import path for a worker
    under another Python, which must find torchsmith but not this Python's torch."""
    key = _package_root()
    if key not in _foreign_roots:
        folder = tempfile.mkdtemp(prefix="torchsmith-path-")
        os.symlink(Path(key) / "torchsmith", Path(folder) / "torchsmith")
        _foreign_roots[key] = folder
    return _foreign_roots[key]


def same_python(python: str | None) -> bool:
    """True for this interpreter. Paths are compared without resolving links: two venvs link
    to one base interpreter, and each must see its own site-packages."""
    if python is None:
        return True
    return os.path.abspath(python) == os.path.abspath(sys.executable)


def worker_env(
    jobs: int = 1, python: str | None = None, base: dict[str, str] | None = None
) -> dict[str, str]:
    """The environment of a worker process.

    Under this Python it imports what the parent imports (the parent's ``sys.path``, so
    programs and in-worker tools see the same modules); under ``python`` (another interpreter,
    another torch) it finds only the torchsmith package. Each of ``jobs`` workers gets its share
    of the cores (``OMP_NUM_THREADS``) and one Inductor compile thread, so workers do not
    oversubscribe the machine; values exported by the user win. Inductor links its kernels
    with gold where the machine has it (:mod:`torchsmith.execute.toolchain`).
    """
    env = dict(os.environ if base is None else base)
    if same_python(python):
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    else:
        env["PYTHONPATH"] = _foreign_import_root()
        env.pop("PYTHONHOME", None)
    threads = str(max(1, available_cores() // max(1, jobs)))
    env.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", threads)
    env.setdefault("MKL_NUM_THREADS", env["OMP_NUM_THREADS"])
    env["PYTHONUNBUFFERED"] = "1"
    return toolchain.linker_env(env)


def child_command(python: str | None = None) -> list[str]:
    return [python or sys.executable, "-m", CHILD_MODULE]
