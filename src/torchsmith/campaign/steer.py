"""Compiler line coverage of a campaign, sampled, and family weights steered by it.

Every ``every``-th seed (``seed % every == 0``: a draw independent of the family) has its
program compiled once more in its slot's worker with coverage.py measuring Dynamo,
AOTAutograd and Inductor (:func:`torchsmith.generate.coverage.compiler_lines`). The lines no
earlier program of the campaign ran are that program's *new lines*, credited to its family.

With steering on, the mix's family weights are multiplied by :meth:`LineCoverage.boost`: a
family's recent new lines per sampled program (a decayed mean, so a family that stops reaching
new code loses its boost) relative to the mean over families, clipped to ``[1/CLIP, CLIP]``. A
family with fewer than ``MIN_SAMPLES`` samples keeps multiplier 1. With steering off the lines
are still measured (the bench's "without" arm pays the same cost and has a coverage curve too).

The campaign folder's ``lines.jsonl`` is owned here: one JSON object per sampled program
(``t`` campaign seconds, ``seed``, ``family``, ``new`` count, ``lines`` file -> numbers).
:meth:`LineCoverage.load` rebuilds the union, the per-family rates and the curve from it on
``--resume``; a torn last line (a killed campaign) is skipped. The campaign's first sample is
the baseline (every compile runs most of the pipeline's code: about 18,000 lines on torch 2.13
CPU) and credits no family.

Invariants: ``total`` is the size of the union of every recorded program's lines; a program's
``new`` count is the size of its lines minus the union before it, so the counts sum to
``total``; every multiplier lies in ``[1/CLIP, CLIP]``.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from torchsmith.generate.coverage import compiler_lines
from torchsmith.jsonable import jsonl_rows

LINES_FILE = "lines.jsonl"
#: Weight of the newest sample in a family's decayed mean of new lines.
DECAY = 0.2
MIN_SAMPLES = 3
CLIP = 4.0


class LineCoverage:
    """The union of compiler lines a campaign's sampled programs ran, per-family novelty rates,
    and the curve of the union's size over campaign time."""

    def __init__(self, folder: Path | None = None, every: int = 4, steer: bool = False) -> None:
        if every < 1:
            raise ValueError(f"coverage sampling: every must be >= 1, not {every}")
        self.every, self.steer = every, steer
        self.path = Path(folder) / LINES_FILE if folder is not None else None
        self.union: dict[str, set[int]] = {}
        self.total = 0
        self.rate: dict[str, float] = {}  # family -> decayed mean of new lines per sample
        self.samples: dict[str, int] = {}
        self.curve: list[tuple[float, int]] = []  # (campaign seconds, total) per sample
        self.warned = False  # the campaign said once that a sample came back empty
        self._lock = threading.Lock()

    def sampled(self, seed: int) -> bool:
        """Whether ``seed``'s program has its lines measured."""
        return seed % self.every == 0

    def record(
        self, family: str, lines: dict[str, list[int]], t: float = 0.0, seed: int | None = None
    ) -> int:
        """Add one sampled program's lines; returns how many no earlier program ran."""
        with self._lock:
            new = self._add(family, lines, t)
            if self.path is not None:
                row = {"t": round(t, 1), "seed": seed, "family": family, "new": new}
                with self.path.open("a") as f:
                    f.write(json.dumps({**row, "lines": lines}) + "\n")
            return new

    def _add(self, family: str, lines: dict[str, list[int]], t: float) -> int:
        baseline = self.total == 0  # the first program runs the whole pipeline's common code
        new = 0
        for path, numbers in lines.items():
            seen = self.union.setdefault(path, set())
            before = len(seen)
            seen.update(int(n) for n in numbers)
            new += len(seen) - before
        self.total += new
        self.curve.append((t, self.total))
        if baseline:
            return new
        n = self.samples.get(family, 0)
        old = self.rate.get(family, float(new))
        self.rate[family] = float(new) if n == 0 else (1 - DECAY) * old + DECAY * new
        self.samples[family] = n + 1
        return new

    def load(self) -> int:
        """Rebuild the state from ``lines.jsonl`` (``--resume``); returns the samples read."""
        if self.path is None:
            return 0
        read = 0
        with self._lock:
            for row in _rows(self.path):
                self._add(str(row["family"]), row.get("lines") or {}, float(row.get("t", 0)))
                read += 1
        return read

    def sample(
        self,
        worker: Any,
        row: Any,
        program: Any,
        opts: Any,
        result: Any,
        t: float,
        event: Callable[[str, str], None] = lambda kind, text: None,
    ) -> None:
        """Measure the compiler lines of a sampled seed's (``row.seed``) valid program: one more
        compile in ``worker``, outside the check's work time; credit ``row.generator`` with the
        new ones. A program that made a fault (killed or hung its worker) is not compiled again.
        The first empty answer is said once through ``event`` (no coverage.py under --python)."""
        if not result.verdict.eager_valid or result.finding_kind == "fault":
            return
        if not self.sampled(row.seed):
            return
        got = compiler_lines(worker, program, dataclasses.replace(opts, timeout=120.0))
        if got is None and self.total == 0 and not self.warned:
            self.warned = True
            event(
                "error",
                f"seed {row.seed}: no line coverage came back"
                " (is coverage.py installed in the workers' Python?)",
            )
        if got is not None:
            self.record(row.generator, got, t, row.seed)

    def boost(self) -> dict[str, float]:
        """Family -> weight multiplier (empty with steering off or before any family has
        :data:`MIN_SAMPLES` samples)."""
        with self._lock:
            if not self.steer:
                return {}
            ready = {f: r for f, r in self.rate.items() if self.samples[f] >= MIN_SAMPLES}
            if not ready:
                return {}
            mean = sum(ready.values()) / len(ready)
            if mean <= 0:
                return dict.fromkeys(ready, 1.0)
            return {f: min(CLIP, max(1 / CLIP, r / mean)) for f, r in ready.items()}


def _rows(path: Path) -> Iterator[dict[str, Any]]:
    """The samples of a ``lines.jsonl``, in order; a torn line (a killed campaign) is skipped:
    its seed is sampled again when the campaign resumes."""
    return jsonl_rows(path)


def read_curve(folder: Path) -> list[dict[str, Any]]:
    """``lines.jsonl``'s samples without their lines: ``t``, ``seed``, ``family``, ``new`` and
    the running ``total`` (for benches and the summary)."""
    out: list[dict[str, Any]] = []
    total = 0
    for row in _rows(Path(folder) / LINES_FILE):
        row.pop("lines", None)
        total += int(row.get("new", 0))
        out.append({**row, "total": total})
    return out
