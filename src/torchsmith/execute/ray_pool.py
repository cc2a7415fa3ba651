"""Workers on a Ray cluster: each slot's worker process lives in a Ray actor, on any node.

The campaign does not change: its slots still generate in the driver, send one
:class:`~torchsmith.execute.protocol.Request` per job and get one
:class:`~torchsmith.execute.protocol.JobOutcome` back; a :class:`RayWorker` stands where a local
:class:`~torchsmith.execute.pool.CampaignWorker` stands. Inside its actor a plain
:class:`~torchsmith.execute.worker.Worker` runs the job crash-safely on that node (one protocol,
not a second one): a program that kills its worker is a death recorded as locally, and the actor
lives on with a fresh worker.

When the actor itself is lost (its process or its node killed), :meth:`RayWorker.run` raises
:class:`ActorLost` and forgets the actor; the campaign re-queues the program once and the next
job starts a new actor, which Ray places on a live node. Resources per actor come from
``--ray-cpus`` / ``--ray-gpus``; ``ray`` is an optional dependency (``torchsmith[ray]``).
"""

from __future__ import annotations

import os
import time
from typing import Any

from torchsmith.execute.protocol import JobOutcome, Request

#: Seconds a driver waits beyond a job's own timeout (actor start, worker start, transfer).
MARGIN_S = 300.0


class ActorLost(RuntimeError):
    """The Ray actor running a job died with it (its process or its node is gone)."""


def init(address: str | None, jobs: int) -> Any:
    """Connect to the cluster at ``address`` (``auto``: the running one) or, with ``local``,
    start a one-machine cluster sized for ``jobs`` actors. Returns the ``ray`` module."""
    try:
        import ray
    except ImportError as e:
        raise RuntimeError("--ray needs Ray: pip install 'torchsmith[ray]'") from e
    if not ray.is_initialized():
        if address in (None, "", "local"):
            ray.init(num_cpus=max(1, jobs), include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    return ray


def _actor_class() -> Any:
    import ray

    @ray.remote(max_restarts=0, max_task_retries=0)
    class WorkerActor:
        """One crash-safe worker process on whatever node Ray placed this actor."""

        def __init__(self, memory_mb: int, python: str | None, jobs_per_node: int) -> None:
            from torchsmith.execute.protocol import worker_env
            from torchsmith.execute.worker import Worker

            env = worker_env(jobs_per_node, python=python)
            self.worker = Worker(memory_mb=memory_mb, env=env, python=python)
            self.node = ray.get_runtime_context().get_node_id()

        def where(self) -> tuple[str, int]:
            return self.node, os.getpid()

        def run(
            self, request: Request, timeout: float, memory_mb: int | None
        ) -> tuple[JobOutcome, tuple[int, bool, str | None]]:
            """The outcome and :meth:`stats` after it, in one round trip."""
            return self.worker.run(request, timeout, memory_mb), self.stats()

        def stats(self) -> tuple[int, bool, str | None]:
            return self.worker.starts, self.worker.alive, self.worker.torch_version

        def close(self) -> None:
            self.worker.close()

    return WorkerActor


class RayWorker:
    """A worker whose process lives in a Ray actor; what a campaign slot needs of a worker."""

    def __init__(
        self,
        memory_mb: int,
        python: str | None = None,
        cpus: float = 1.0,
        gpus: float = 0.0,
        jobs_per_node: int = 1,
    ) -> None:
        self.memory_mb, self.python = memory_mb, python
        self.cpus, self.gpus, self.jobs_per_node = cpus, gpus, jobs_per_node
        self.actor: Any = None
        self.node: str | None = None
        self._worker_alive = False
        self.starts = 0  # worker processes started (summed over this slot's actors)
        self._actor_starts = 0
        self.actors = 0  # actors started (a replaced actor counts again)
        self.proc = None  # no local process: retirement by memory is the actor's worker's
        self.log_path = None
        self.work_s = self.jobs_wall_s = 0.0
        self.jobs_since_start = 0
        self.last_peak_mb = 0.0
        self.torch_version: str | None = None  # the actor's worker's torch, once it has run

    def start(self) -> None:
        import ray

        cls = _actor_class().options(num_cpus=self.cpus, num_gpus=self.gpus)
        self.actor = cls.remote(self.memory_mb, self.python, self.jobs_per_node)
        self.node, _ = ray.get(self.actor.where.remote(), timeout=MARGIN_S)
        self.actors += 1
        self._actor_starts = 0
        self._worker_alive = False
        self.jobs_since_start = 0

    @property
    def alive(self) -> bool:
        """The actor's worker process is up (as a local worker's ``alive``)."""
        return self.actor is not None and self._worker_alive

    def reset_work(self) -> None:
        self.work_s = self.jobs_wall_s = 0.0

    def run(self, request: Request, timeout: float, memory_mb: int | None = None) -> JobOutcome:
        """The job's outcome, as a local worker gives it; :class:`ActorLost` when the actor
        (its node) died during the job."""
        import ray
        from ray.exceptions import GetTimeoutError, RayActorError, RayError

        if self.actor is None:
            self.start()
        t0 = time.monotonic()
        try:
            out, (starts, self._worker_alive, version) = ray.get(
                self.actor.run.remote(request, timeout, memory_mb), timeout=timeout + MARGIN_S
            )
        except (RayActorError, GetTimeoutError) as e:
            self.actor = None
            raise ActorLost(f"the Ray actor on node {self.node} was lost: {e}") from e
        except RayError as e:  # anything else Ray says went wrong on the way
            self.actor = None
            raise ActorLost(f"Ray failed the job: {e}") from e
        self.starts += starts - self._actor_starts
        self._actor_starts = starts
        self.torch_version = version or self.torch_version
        self.jobs_since_start += 1
        self.jobs_wall_s += time.monotonic() - t0
        self.last_peak_mb = out.peak_rss_mb
        timings = (out.result or {}).get("timings") or {}
        self.work_s += sum(
            v for k, v in timings.items() if isinstance(v, int | float) and " " not in k
        )
        return out

    def interrupt(self) -> None:
        """Kill the actor from any thread (the campaign's deadline or Ctrl-C)."""
        if self.actor is not None:
            import ray

            try:
                ray.kill(self.actor, no_restart=True)
            except Exception:  # already gone
                pass

    def kill(self) -> None:
        self.interrupt()
        self.actor = None

    def close(self) -> None:
        if self.actor is not None:
            import ray

            try:
                ray.get(self.actor.close.remote(), timeout=60)
            except Exception:  # a lost actor has nothing to close
                pass
            self.kill()
