"""One worker, from the parent's side: start it, feed it jobs, watch it, kill and replace it.

A :class:`Worker` owns one long-lived child process (:mod:`torchsmith.execute.child`). Each job
runs under a wall-clock timeout and a resident-memory cap that the parent enforces from outside,
so nothing the program does (a hang, a segfault, ``abort()``, ``os._exit``, a runaway allocation)
can take the tool down: it becomes a :class:`~torchsmith.execute.protocol.JobOutcome` saying
which phase the worker was in, and the next job gets a fresh worker. What crosses the pipe is
:mod:`torchsmith.execute.protocol`'s; many workers at once are :mod:`torchsmith.execute.pool`'s.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from torchsmith.execute import protocol
from torchsmith.execute.protocol import JobOutcome, Request

STARTUP_TIMEOUT = 180.0


#: Added to a job's deadline when a fresh worker process enters its first compiled run: the
#: first Inductor compile pays the one-time import and toolchain cost (about 20 s, more on a
#: loaded machine), which says nothing about the program. ``TORCHSMITH_FIRST_JOB_GRACE``
#: (seconds) sets it: more on a slow machine, less where the toolchain is warm.
def _grace(text: str | None, default: float = 60.0) -> float:
    """``TORCHSMITH_FIRST_JOB_GRACE`` as seconds; a value that is not a number >= 0 is reported
    on stderr and the default used (it must not stop every command at import)."""
    if text is None:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0:  # also NaN
        print(
            f"torchsmith: TORCHSMITH_FIRST_JOB_GRACE={text!r} is not seconds; using {default:g}",
            file=sys.stderr,
        )
        return default
    return value


FIRST_JOB_GRACE = _grace(os.environ.get("TORCHSMITH_FIRST_JOB_GRACE"))
POLL_INTERVAL = 0.05
LOG_TAIL_CHARS = 4000


def rss_mb(pid: int) -> float:
    """Resident memory of a process in MiB (0 where /proc is not available)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return 0.0


def _signal_name(returncode: int | None) -> str | None:
    if returncode is None or returncode >= 0:
        return None
    try:
        return signal.Signals(-returncode).name
    except ValueError:
        return f"signal {-returncode}"


class Worker:
    """One crash-safe worker process. Not thread-safe: one job at a time.

    ``python`` runs the worker under another interpreter (another venv, another torch): the
    protocol is the same. ``env`` defaults to :func:`~torchsmith.execute.protocol.worker_env`.
    """

    def __init__(
        self,
        memory_mb: int = 8192,
        env: dict[str, str] | None = None,
        log_dir: str | Path | None = None,
        python: str | None = None,
    ) -> None:
        self.memory_mb = memory_mb
        self.python = python
        self.env = env if env is not None else protocol.worker_env(python=python)
        self.log_dir = Path(log_dir) if log_dir else Path(tempfile.mkdtemp(prefix="torchsmith-"))
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.jobs = 0
        self.retired = 0  # processes that said they were spent (a broken accelerator context)
        self.torch_version: str | None = None
        self.last_peak_mb = 0.0  # peak resident memory of the last job
        self.compiled_in_process = False  # the current process has entered a compiled run
        self._buf = b""
        self._next_id = 0
        self.log_path = self.log_dir / "worker.log"

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(
            protocol.child_command(self.python),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            env={**self.env, "TORCHSMITH_WORKDIR": str(self.log_dir)},  # its own scratch folder
            start_new_session=True,  # its own process group: a kill takes g++ children along
        )
        log.close()
        self._buf = b""
        self.starts += 1
        self.compiled_in_process = False
        msg = self._read_message(time.monotonic() + STARTUP_TIMEOUT)
        if msg is None or msg.get("type") != "ready":
            tail = self._log_tail(0)
            self.kill()
            raise RuntimeError(f"worker failed to start: {msg!r}\n{tail}")
        self.torch_version = msg.get("torch")

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def interrupt(self) -> None:
        """SIGKILL the worker's process group, from any thread: the job it runs ends as
        ``died`` in the thread that waits on it, which then cleans up."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def kill(self) -> None:
        """Kill the worker's process group and forget the process (the owning thread only)."""
        proc = self.proc
        if proc is None:
            return
        try:  # the whole group, even when the worker itself has exited: a program's children
            os.killpg(proc.pid, signal.SIGKILL)  # (g++, a process it started) go with it
        except (ProcessLookupError, PermissionError):
            if proc.poll() is None:
                proc.kill()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL does not fail
            pass
        for stream in (proc.stdin, proc.stdout):
            if stream:
                stream.close()
        self.proc = None

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None and self.proc.stdin:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- jobs --------------------------------------------------------------------------------
    def run(self, request: Request, timeout: float, memory_mb: int | None = None) -> JobOutcome:
        """Send one job and wait for its outcome; a dead or hung worker is killed, not reused.

        ``memory_mb`` caps this job's resident memory (default: the worker's own cap).
        """
        if not self.alive:
            self.start()
        assert self.proc is not None and self.proc.stdin is not None
        cap = memory_mb if memory_mb is not None else self.memory_mb
        self._next_id += 1
        rid = self._next_id
        log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        t0 = time.monotonic()
        deadline = t0 + timeout
        out = JobOutcome(status="died", memory_mb=cap, timeout=timeout)
        try:
            self.proc.stdin.write(request.to_line(rid, cap).encode())
            self.proc.stdin.flush()
        except BrokenPipeError:
            return self._dead(out, t0, log_offset)
        self.jobs += 1
        try:
            out = self._wait(rid, out, t0, deadline, cap, log_offset)
        finally:
            self.last_peak_mb = out.peak_rss_mb
        if out.retire and self.proc is not None:  # spent: the next job gets a fresh process
            self.retired += 1
            self.kill()
        return out

    def _wait(
        self, rid: int, out: JobOutcome, t0: float, deadline: float, cap: int, log_offset: int
    ) -> JobOutcome:
        assert self.proc is not None
        while True:
            msg = self._read_message(min(deadline, time.monotonic() + POLL_INTERVAL))
            if msg is not None:
                if msg.get("id") != rid:
                    continue
                if msg["type"] == "phase":
                    out.phase = msg["phase"]
                    if out.phase == "compiled" and not self.compiled_in_process:
                        self.compiled_in_process = True
                        deadline += FIRST_JOB_GRACE
                        out.timeout += FIRST_JOB_GRACE
                    continue
                out.wall = time.monotonic() - t0
                out.retire = str(msg.get("retire") or "")
                if msg["type"] == "result":
                    out.status, out.result = "result", msg["result"]
                else:
                    out.status = "error"
                    out.error = msg.get("error", "") + "\n" + msg.get("traceback", "")
                    out.log_tail = self._log_tail(log_offset)
                return out
            if not self.alive:
                return self._dead(out, t0, log_offset)
            out.peak_rss_mb = max(out.peak_rss_mb, rss_mb(self.proc.pid))
            if out.peak_rss_mb > cap:
                out.memory_exceeded = True
                out.signal = "SIGKILL"
                return self._end(out, "died", t0, log_offset)
            if time.monotonic() >= deadline:
                return self._end(out, "timeout", t0, log_offset)

    def _end(self, out: JobOutcome, status: str, t0: float, log_offset: int) -> JobOutcome:
        self.kill()
        out.status = status
        out.wall = time.monotonic() - t0
        out.log_tail = self._log_tail(log_offset)
        return out

    def _dead(self, out: JobOutcome, t0: float, log_offset: int) -> JobOutcome:
        assert self.proc is not None
        code = self.proc.wait()
        out.returncode = code
        out.signal = _signal_name(code)
        if code == protocol.MEMORY_EXIT:  # the worker stopped itself at the cap
            out.memory_exceeded, out.signal = True, "SIGKILL"
        return self._end(out, "died", t0, log_offset)

    # -- plumbing ----------------------------------------------------------------------------
    def _read_message(self, deadline: float) -> dict[str, Any] | None:
        """The next protocol message, or None when the deadline passes or the pipe closes."""
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return protocol.read_message(line)

    def _log_tail(self, offset: int) -> str:
        try:
            with open(self.log_path, "rb") as f:
                f.seek(offset)
                data = f.read()
        except OSError:
            return ""
        return data.decode(errors="replace")[-LOG_TAIL_CHARS:]
