"""Known-cause avoidance: fewer checks spent on programs that repeat a cause already found.

A surface saturates: after its first half hour most failing programs repeat a cause the
campaign already has (a signature seen before, or one the known-bug table labels), and each
such program costs a check plus the backend ladder. On earlier 2.13 runs repeats took 14-55 %
of the campaign's time (export-hop 14 %, hop 25 %, hop under the config space 32 %, train-hop
55 %). Avoidance spends that time on other programs instead.

A program's *features* (:func:`features`) are its generator's notes (``hop=scan``,
``grad=True``, ``route=map``, ``op=remainder``), every pair of them (a cause is often a
combination: ``scan`` *with* gradients), and the ops it calls (``op:remainder``; the graph
family has no notes). After each check, :meth:`Avoidance.record` adds the program to its
features' counts: checked, and *repeated* (a finding whose signature was not new to the
campaign, or was known). A feature's repeat rate ``p_f`` is smoothed toward the campaign's
``p0`` by :data:`PRIOR` pseudo-programs. A freshly generated program is checked with
probability

    accept = clip(min over its features of ((1 - p_f) / (1 - p0)) ** 2, FLOOR, 1)

and otherwise recorded as ``avoided`` (naming the feature) without a check. Generation costs
about 5 % of a check. The draw is ``random.Random(f"avoid-{seed}")``: a function of the seed and
the counts so far.

``avoid.jsonl`` in the campaign folder is owned here: one JSON object per checked program
(``seed``, ``features``, ``repeat``), read back on ``--resume``; a torn last line is skipped.

Invariants: ``accept`` lies in ``[FLOOR, 1]``; a feature never seen, or repeating no more often
than the campaign does, never lowers it; with no repeat recorded every program is accepted.
"""

from __future__ import annotations

import itertools
import json
import random
import re
import threading
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from torchsmith.jsonable import jsonl_rows

AVOID_FILE = "avoid.jsonl"
#: Pseudo-programs at the campaign's repeat rate added to every feature's counts.
PRIOR = 4.0
#: The least acceptance: a saturated feature is still explored now and then.
FLOOR = 0.125
#: Notes that carry no cause: counts, sources, expectations, a mutation's base program.
_NOISE = ("calls=", "steps=", "source=", "expect=", "absent=", "base=gen_", "pattern=")
_NOTE = re.compile(r"^[\w.:-]+(=[\w.,+:|/-]*)?$")


def features(notes: Iterable[str], ops: Iterable[str] = ()) -> tuple[str, ...]:
    """A program's features: its notes that name a choice (no counts, no free text), every
    pair of them, and ``op:<name>`` for each op it calls; sorted, without repeats."""
    singles = sorted(
        {n for n in notes if _NOTE.match(n) and not n.startswith(_NOISE) and len(n) <= 80}
    )
    pairs = [f"{a} & {b}" for a, b in itertools.combinations(singles, 2)]
    return tuple(sorted({*singles, *pairs, *(f"op:{o}" for o in ops)}))


class Avoidance:
    """Per-feature counts of checked and repeated programs, and the acceptance they give."""

    def __init__(self, folder: Path | None = None) -> None:
        self.path = Path(folder) / AVOID_FILE if folder is not None else None
        self.checked: Counter[str] = Counter()
        self.repeated: Counter[str] = Counter()
        self.total = 0  # checked programs
        self.repeats = 0  # of which repeated a cause
        self._lock = threading.Lock()

    def acceptance(self, feats: Iterable[str]) -> tuple[float, str | None]:
        """The probability of checking a program with ``feats``, and the feature that set it
        (None when nothing lowered it)."""
        with self._lock:
            if not self.repeats or self.repeats >= self.total:
                return 1.0, None
            p0 = self.repeats / self.total
            best, why = 1.0, None
            for f in feats:
                n = self.checked.get(f, 0)
                if self.repeated.get(f, 0) * self.total <= self.repeats * n:
                    continue  # no more often than the campaign (exact: no rounding can lower it)
                p = (self.repeated.get(f, 0) + PRIOR * p0) / (n + PRIOR)
                a = ((1.0 - p) / (1.0 - p0)) ** 2
                if a < best:
                    best, why = a, f
            return max(FLOOR, best), why

    def accept(self, seed: int, feats: Iterable[str]) -> tuple[bool, str | None]:
        """Whether ``seed``'s program is checked; when not, the feature that avoided it."""
        p, why = self.acceptance(feats)
        if p >= 1.0 or random.Random(f"avoid-{seed}").random() < p:
            return True, None
        return False, why

    def record(self, seed: int, feats: Iterable[str], repeat: bool) -> None:
        """Count one checked program (``repeat``: its finding repeated a known cause)."""
        feats = list(feats)
        with self._lock:
            self._add(feats, repeat)
            if self.path is not None:
                with self.path.open("a") as f:
                    f.write(json.dumps({"seed": seed, "features": feats, "repeat": repeat}) + "\n")

    def _add(self, feats: list[str], repeat: bool) -> None:
        self.total += 1
        self.repeats += int(repeat)
        self.checked.update(feats)
        if repeat:
            self.repeated.update(feats)

    def load(self) -> int:
        """Rebuild the counts from ``avoid.jsonl`` (``--resume``); returns the programs read."""
        if self.path is None:
            return 0
        read = 0
        with self._lock:  # a torn last line is skipped: that seed is checked again on resume
            for row in jsonl_rows(self.path):
                self._add(list(row.get("features") or []), bool(row.get("repeat")))
                read += 1
        return read
