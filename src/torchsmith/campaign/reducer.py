"""Reduction in the background: each new bug of a campaign, reduced while the fuzzing goes on.

A campaign hands every new signature's first finding to :class:`BackgroundReducer`
(``fuzz`` does by default; ``--no-reduce`` turns it off). One thread takes them in order, each
with its own crash-safe worker and within ``--reduce-time`` seconds
(:func:`torchsmith.reduce.reduce_finding`: no drift, a result that reproduces standalone), and
re-signs the bug from the reduced program (``refine``): two bugs whose reduced forms sign alike
become one cause (the store groups findings by their refined signature).

Before reducing a behaviour failure the thread screens it with the path canary
(:mod:`torchsmith.canary`, when the campaign passes ``mark``): when a trivial program
on the same path fails the same way, the bug is marked *path-wide* (``mark``) and not reduced:
the machine's setup or the whole path, reported once, not a bug of the program.

Invariants: a reducer fault never stops the campaign (it is reported as an ``error`` event);
at most one reduction runs at a time; :meth:`BackgroundReducer.close` lets the reduction under
way finish (within its budget) and the queued ones run too, unless ``drop_queued`` is given or
their turn comes after ``drain_for`` seconds (a campaign whose time is up: ``fuzz --time 20m`` had
queued 47 bugs and reduced for 50 minutes past its 20), then stops the worker. Skipped bugs
stay unreduced and are reported in one event (``torchsmith reduce`` reduces one later).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from torchsmith import dedup
from torchsmith.campaign.store import Store
from torchsmith.campaign.writer import Writer
from torchsmith.canary import Canary
from torchsmith.execute.inductor_cache import BoundedCache
from torchsmith.finding import Finding


class BackgroundReducer:
    """One thread reducing queued findings (see the module docstring).

    ``reduce(finding, worker)`` returns the reduced finding or None; ``refine(bug, reduced)``
    re-signs the bug and returns the new signature; ``read(finding_id)`` loads a finding;
    ``event(kind, text)`` reports progress; ``make_worker()`` builds the worker, when first
    needed; ``mark(bug, why)`` records a path-wide bug, and with it each failure is screened
    first by ``screen(finding, worker)`` (default: :func:`canary_screen`), which says why a
    finding is path-wide, or None.
    """

    def __init__(
        self,
        reduce: Callable[[Finding, Any], Finding | None],
        refine: Callable[[str, Finding], str],
        read: Callable[[str], Finding],
        event: Callable[[str, str], None],
        make_worker: Callable[[], Any],
        cache: BoundedCache | None = None,
        screen: Callable[[Finding, Any], str | None] | None = None,
        mark: Callable[[str, str], None] | None = None,
    ) -> None:
        """``cache``: the worker's own Inductor cache folder, emptied (with a fresh worker)
        between reductions once past its cap."""
        self._cache = cache
        self._reduce, self._refine, self._read = reduce, refine, read
        self._event, self._make_worker = event, make_worker
        self._screen = screen or (canary_screen() if mark is not None else None)
        self._mark = mark
        self._q: queue.Queue[tuple[str, str] | None] = queue.Queue()
        self._drop = threading.Event()
        self._drain_until: float | None = None
        self.skipped: list[str] = []  # bugs left unreduced by close()
        self._worker: Any = None
        self.done: list[tuple[str, str]] = []  # (old signature, new signature)
        self.path_wide: list[str] = []  # bugs the canary explained (not reduced)
        self._thread = threading.Thread(target=self._run, name="torchsmith-reducer", daemon=True)
        self._thread.start()

    def submit(self, finding_id: str, bug: str) -> None:
        """Queue the first finding of a new bug for reduction."""
        self._q.put((finding_id, bug))

    def pending(self) -> int:
        return self._q.qsize()

    def _run(self) -> None:
        while True:
            item = self._q.get()
            if item is None:
                break
            finding_id, bug = item
            late = self._drain_until is not None and time.monotonic() > self._drain_until
            if self._drop.is_set() or late:
                self.skipped.append(bug)
                continue
            try:
                if self._worker is None:
                    self._worker = self._make_worker()
                finding = self._read(finding_id)
                why = self._screen(finding, self._worker) if self._screen else None
                if why:
                    if self._mark is not None:
                        self._mark(bug, why)
                    self.path_wide.append(bug)
                    self._event("path-wide", f"path-wide {bug}: {why}")
                    continue
                reduced = self._reduce(finding, self._worker)
                if reduced is None:
                    self._event("reduced", f"{bug}: nothing smaller fails the same way")
                    continue
                new = self._refine(bug, reduced)
                self.done.append((bug, new))
                self._event("reduced", f"reduced {bug} -> {new} ({reduced.folder})")
            except Exception as e:  # a reducer fault must never stop the campaign
                self._event("error", f"reduction of {finding_id} failed: {e!r}"[:300])
            finally:
                if self._cache is not None and self._worker is not None and self._cache.over_cap():
                    self._worker.close()  # no live process holds its kernels, then empty it
                    self._worker = None
                    self._cache.clear()

    def close(self, drop_queued: bool = False, drain_for: float | None = None) -> None:
        """Finish (or, with ``drop_queued``, skip) what is queued, then stop the worker;
        ``drain_for`` (seconds): what has not started by then is skipped. Skipped bugs are in
        :attr:`skipped` and reported in one event."""
        if drop_queued:
            self._drop.set()
        if drain_for is not None:
            self._drain_until = time.monotonic() + drain_for
        self._q.put(None)
        self._thread.join()
        if self.skipped:
            self._event(
                "reduced",
                f"{len(self.skipped)} bug(s) left unreduced when the campaign stopped "
                "(torchsmith reduce FINDING_DIR reduces one)",
            )
        if self._worker is not None and hasattr(self._worker, "close"):
            self._worker.close()


def drain_seconds(config: Any) -> float | None:
    """How long a campaign (its :class:`~torchsmith.campaign.config.CampaignConfig`) that
    stops reduces what is queued: a quarter of its time budget, at least one reduction's
    budget; without a time budget (``--count``), all of it (None)."""
    budget = config.time_budget
    return max(config.reduce_budget, budget / 4) if budget else None


def canary_screen() -> Callable[[Finding, Any], str | None]:
    """A ``screen`` for :class:`BackgroundReducer`: the path canary, run in its worker, one
    check per path for the campaign's life."""
    from torchsmith.check import check_program

    canary = Canary()

    def screen(finding: Finding, worker: Any) -> str | None:
        check = lambda p, o: check_program(p, o, worker)  # noqa: E731
        return canary.screen(finding.program, finding.result, finding.options, check)

    return screen


def mark_path_wide(writer: Writer | Store, bug: str, why: str) -> None:
    """Record that ``bug`` is path-wide, with the canary's reason (in a campaign or offline)."""
    if isinstance(writer, Writer):
        writer.call(Store.set_path_wide, bug, why)
    else:
        writer.set_path_wide(bug, why)


def refine_bug(writer: Writer | Store, old_signature: str, reduced: Finding) -> str:
    """Give the bug ``old_signature`` the signature of its reduced example; returns it.

    Works with the campaign's :class:`Writer` (inside a running campaign) or a :class:`Store`
    opened on the campaign folder (offline, when no campaign is running).
    """
    readable = dedup.readable_signature(reduced.result, reduced.program)
    new = dedup.hash_signature(readable)
    args = (old_signature, new, readable, reduced.folder.name)
    if isinstance(writer, Writer):
        writer.call(Store.set_bug_signature, *args)
    else:
        writer.set_bug_signature(*args)
    return new
