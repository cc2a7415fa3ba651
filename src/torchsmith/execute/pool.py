"""The pool: N long-lived workers for a campaign, one thread per slot, each owning a Worker.

Why threads and not a process pool: the work happens in the worker processes (one per slot,
crash-safe, see :mod:`torchsmith.execute.worker`); a slot's thread only generates a program,
writes the job to its worker and waits on the pipe, so the GIL is not the bottleneck, and every
slot shares the campaign's store writer, seed source, counters and display without pickling.
A slot whose worker dies, hangs or passes its memory cap gets a fresh worker on its next job;
:meth:`Slot.abort` kills a worker from outside (the campaign's deadline or Ctrl-C).

Cores are shared out: each worker gets ``OMP_NUM_THREADS = cores // jobs`` (intra-op threads and
Inductor's generated OpenMP code) and ``TORCHINDUCTOR_COMPILE_THREADS = 1`` (no compile pool per
worker), so ``--jobs`` workers do not oversubscribe the machine; values the user exported win.

Memory that creeps up across programs (caches Dynamo's reset does not free) must not be blamed
on whichever program happens to cross the cap: between programs a slot retires its worker when
its resident memory passes ``retire_rss_fraction`` of the cap or after ``retire_after_jobs``
jobs; the next program starts a fresh one. Retirements are counted apart from deaths.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from torchsmith.execute.inductor_cache import BoundedCache, slot_env
from torchsmith.execute.protocol import JobOutcome, Request, worker_env
from torchsmith.execute.worker import Worker, rss_mb

LOG_ROTATE_BYTES = 64 << 20


class CampaignWorker(Worker):
    """A Worker that also adds up the time its jobs spent inside the worker.

    ``work_s`` is the sum of the per-phase seconds the worker measured (load, eager, fp64,
    compiled, ...) over every job since :meth:`reset_work`; ``jobs_wall_s`` the parent-side wall
    time of those jobs. The difference is protocol, (re)start and scheduling overhead.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.work_s = 0.0
        self.jobs_wall_s = 0.0
        self.jobs_since_start = 0

    def reset_work(self) -> None:
        self.work_s = 0.0
        self.jobs_wall_s = 0.0

    def start(self) -> None:
        self.jobs_since_start = 0
        super().start()

    def run(self, request: Request, timeout: float, memory_mb: int | None = None) -> JobOutcome:
        out = super().run(request, timeout, memory_mb)
        self.jobs_since_start += 1
        self.jobs_wall_s += out.wall
        timings = (out.result or {}).get("timings") or {}
        self.work_s += sum(  # the phases; "compile <stage>" entries break down "compiled"
            v for k, v in timings.items() if isinstance(v, int | float) and " " not in k
        )
        return out


class Slot:
    """One place in the pool: an index, a worker and (while running) a thread."""

    def __init__(
        self,
        index: int,
        memory_mb: int,
        env: dict[str, str],
        log_dir: Path,
        retire_rss_fraction: float = 0.5,
        retire_after_jobs: int = 2000,
        python: str | None = None,
        make_worker: Callable[[], Any] | None = None,
        cache_mb: float = 0.0,
    ) -> None:
        """``make_worker()`` builds the slot's worker (default: a local
        :class:`CampaignWorker`; :class:`torchsmith.execute.ray_pool.RayWorker` on a cluster).
        ``cache_mb`` > 0 gives a local worker its own Inductor cache folder, emptied past that
        size (:mod:`torchsmith.execute.inductor_cache`)."""
        self.index = index
        self.cache: BoundedCache | None = None
        if make_worker is None:
            env, folder = slot_env(env, log_dir, cache_mb)
            self.cache = BoundedCache(folder, cache_mb) if folder is not None else None
        self.worker = (
            make_worker()
            if make_worker is not None
            else CampaignWorker(memory_mb=memory_mb, env=env, log_dir=log_dir, python=python)
        )
        self.retire_rss_fraction = retire_rss_fraction
        self.retire_after_jobs = retire_after_jobs
        self.retirements = 0
        self.aborted = threading.Event()
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None

    def kill(self) -> None:
        """Kill the worker's process group from any thread; its job then ends as ``died``."""
        self.worker.interrupt()

    def abort(self) -> None:
        self.aborted.set()
        self.kill()

    def after_program(self) -> bool:
        """Between programs: retire a bloated or old worker, trim its log. True if retired."""
        w = self.worker
        if (
            w.log_path is not None
            and w.log_path.exists()
            and w.log_path.stat().st_size > LOG_ROTATE_BYTES
        ):
            os.truncate(w.log_path, 0)  # the child appends (O_APPEND): safe while it runs
        if not w.alive or w.proc is None:  # dead already: nothing holds the folder's kernels
            if self.cache is not None and self.cache.over_cap():
                self.cache.clear()
            return False
        too_big = rss_mb(w.proc.pid) > self.retire_rss_fraction * w.memory_mb
        cache_full = self.cache is not None and self.cache.over_cap()
        if too_big or cache_full or w.jobs_since_start >= self.retire_after_jobs:
            w.close()
            if cache_full and self.cache is not None:
                self.cache.clear()  # no live process holds its kernels now
            self.retirements += 1
            return True
        return False


class WorkerPool:
    """``jobs`` slots, each run by its own thread through ``body(slot)``."""

    def __init__(
        self,
        jobs: int,
        memory_mb: int,
        log_root: Path,
        env: dict[str, str] | None = None,
        python: str | None = None,
        cache_mb: float = 0.0,
        **slot_kw: Any,
    ) -> None:
        """``python`` runs every worker under another interpreter (a venv with another torch).
        ``cache_mb``: the Inductor cache of all slots together (each gets its share; 0: none
        of their own, see :mod:`torchsmith.execute.inductor_cache`)."""
        env = env if env is not None else worker_env(jobs, python=python)
        share = cache_mb / (jobs + 1)  # one share is the background reducer's
        self.slots = [
            Slot(
                i,
                memory_mb,
                env,
                Path(log_root) / f"slot-{i}",
                python=python,
                cache_mb=share,
                **slot_kw,
            )
            for i in range(jobs)
        ]

    def start(self, body: Callable[[Slot], None]) -> None:
        def run(slot: Slot) -> None:
            try:
                body(slot)
            except BaseException as e:  # surfaced by the campaign, never swallowed
                slot.error = e

        for slot in self.slots:
            slot.thread = threading.Thread(
                target=run, args=(slot,), name=f"torchsmith-slot-{slot.index}", daemon=True
            )
            slot.thread.start()

    def alive(self) -> bool:
        return any(s.thread is not None and s.thread.is_alive() for s in self.slots)

    def join(self, timeout: float) -> None:
        for s in self.slots:
            if s.thread is not None:
                s.thread.join(timeout / max(1, len(self.slots)))

    def abort(self) -> None:
        for s in self.slots:
            s.abort()

    def errors(self) -> list[BaseException]:
        return [s.error for s in self.slots if s.error is not None]

    @property
    def retirements(self) -> int:
        return sum(s.retirements for s in self.slots)

    @property
    def cache_clears(self) -> int:
        """How often a slot emptied its Inductor cache folder (each also a retirement)."""
        return sum(s.cache.clears for s in self.slots if s.cache is not None)

    def stop(self, grace: float = 30.0) -> None:
        """Abort every slot and wait for the threads, killing again while they linger (a worker
        may have been starting when the first kill came)."""
        deadline = time.monotonic() + grace
        while self.alive() and time.monotonic() < deadline:
            self.abort()
            self.join(0.5)

    def close(self) -> None:
        if self.alive():
            self.stop()
        for s in self.slots:
            s.worker.close()
