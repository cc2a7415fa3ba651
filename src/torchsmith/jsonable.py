"""JSON round-trips for plain dataclasses, shared by the records the project stores.

:class:`Jsonable` gives a dataclass ``to_dict`` (``dataclasses.asdict``) and ``from_dict``,
which ignores keys the class does not have: a record written by a newer or older torchsmith
still reads, and a missing key takes the field's default. :func:`jsonl_rows` reads the
campaign's append-only JSON-lines files (``lines.jsonl``, ``avoid.jsonl``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T", bound="Jsonable")


class Jsonable:
    """Mixin for dataclasses whose fields are JSON-safe."""

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)  # type: ignore[call-overload]

    @classmethod
    def from_dict(cls: type[T], d: dict[str, Any]) -> T:
        names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
        return cls(**{k: v for k, v in d.items() if k in names})


def jsonl_rows(path: Path) -> Iterator[dict[str, Any]]:
    """The objects of a JSON-lines file, in order (none when it does not exist); a torn line,
    left by a writer killed mid-line, is skipped."""
    if not path.exists():
        return
    for line in path.read_text().splitlines():
        try:
            yield json.loads(line)
        except json.JSONDecodeError:
            continue
