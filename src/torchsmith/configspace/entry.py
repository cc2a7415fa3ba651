"""One entry of a config space, and the ``key`` / ``key=value`` atoms its exclusions and
requirements are written in."""

from __future__ import annotations

import dataclasses
from typing import Any

from torchsmith.options import check_config_key, parse_key_value


@dataclasses.dataclass(frozen=True)
class Entry:
    """One setting users turn on: ``key`` in ``--config`` spelling, the non-default ``values``
    a campaign may give it, ``why`` (one line), ``excludes`` (atoms ``key`` or ``key=value``
    it never goes with), ``requires`` (``key=value`` atoms set along with it), a sampling
    ``weight`` and the ``devices`` it means something on."""

    key: str
    values: tuple[Any, ...]
    why: str
    excludes: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    weight: float = 1.0
    devices: tuple[str, ...] = ("cpu", "cuda")

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(self.values))
        object.__setattr__(self, "excludes", tuple(self.excludes))
        object.__setattr__(self, "requires", tuple(self.requires))
        object.__setattr__(self, "devices", tuple(self.devices))
        check_config_key(self.key)
        if not self.values:
            raise ValueError(f"config space entry {self.key}: no values")
        if not self.why.strip():
            raise ValueError(f"config space entry {self.key}: say why users turn it on")
        if self.weight < 0:
            raise ValueError(f"config space entry {self.key}: negative weight")
        for atom in (*self.excludes, *self.requires):
            check_config_key(parse_atom(atom)[0])
        for atom in self.requires:
            if parse_atom(atom)[1] is _ANY:
                raise ValueError(f"config space entry {self.key}: requires {atom!r} needs =VALUE")


_ANY = object()


def parse_atom(atom: str) -> tuple[str, Any]:
    """``"inductor.freezing"`` -> ``(key, ANY)``; ``"inductor.cpp.simdlen=1"`` -> ``(key, 1)``."""
    if "=" not in atom:
        return atom.strip(), _ANY
    return parse_key_value(atom, "a config space atom")


def matches(atom: str, key: str, value: Any) -> bool:
    k, v = parse_atom(atom)
    return k == key and (v is _ANY or v == value)
