"""The one thread that writes ``campaign.db``: every write of a running campaign goes through
:meth:`Writer.call`, so SQLite never sees two writers and a slow disk never blocks a worker slot.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from torchsmith.campaign.store import HEARTBEAT_S, Store


class Writer:
    """The only thread that writes ``campaign.db``; others :meth:`call` into it.

    Between requests it refreshes the heartbeat (and the campaign's elapsed seconds) so
    ``torchsmith status`` can tell a live campaign from one that was killed.
    """

    def __init__(self, path: Path, elapsed: Callable[[], float | None] | None = None) -> None:
        self.path = path
        self.elapsed = elapsed
        self._q: queue.Queue[tuple[Callable[..., Any], tuple[Any, ...], Future[Any]] | None]
        self._q = queue.Queue()
        self._ready: Future[None] = Future()
        self._thread = threading.Thread(target=self._run, name="torchsmith-writer", daemon=True)
        self._thread.start()
        self._ready.result()  # raises if the database cannot be opened

    def _run(self) -> None:
        try:
            store = Store(self.path)
        except BaseException as e:
            self._ready.set_exception(e)
            return
        self._ready.set_result(None)
        last = 0.0
        while True:
            try:
                item = self._q.get(timeout=HEARTBEAT_S)
            except queue.Empty:
                item = ...  # type: ignore[assignment]
            if item is None:
                break
            if item is not ...:
                fn, args, fut = item
                try:
                    fut.set_result(fn(store, *args))
                except BaseException as e:
                    fut.set_exception(e)
            elapsed = self.elapsed() if self.elapsed else None
            if elapsed is not None and time.monotonic() - last >= HEARTBEAT_S:
                last = time.monotonic()
                store.heartbeat(elapsed)
        store.close()

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn(store, *args)`` in the writer thread and return its result."""
        fut: Future[Any] = Future()
        self._q.put((fn, args, fut))
        return fut.result()

    def close(self) -> None:
        self._q.put(None)
        self._thread.join()
