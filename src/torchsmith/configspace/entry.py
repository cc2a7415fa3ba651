"""One entry of a config space, and the ``key`` / ``key=value`` atoms its exclusions and
requirements are written in."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from torchsmith.options import check_config_key, parse_key_value

#: Program traits an entry may be documented not to support, and how a program shows them.
TRAITS: dict[str, re.Pattern[str]] = {
    # updates its own parameters (an optimizer step): frozen weights "can no longer be updated"
    "trains": re.compile(r"\btorch\.optim\b"),
}


def program_traits(source: str) -> frozenset[str]:
    """The :data:`TRAITS` a program's source shows."""
    return frozenset(t for t, pattern in TRAITS.items() if pattern.search(source))


@dataclasses.dataclass(frozen=True)
class Entry:
    """One setting users turn on: ``key`` in ``--config`` spelling, the non-default ``values``
    a campaign may give it, ``why`` (one line), ``excludes`` (atoms ``key`` or ``key=value``
    it never goes with), ``requires`` (``key=value`` atoms set along with it), a sampling
    ``weight``, the ``devices`` it means something on, and ``not_for``: the program traits
    (:data:`TRAITS`) it is documented not to support, so it is never drawn for such a program."""

    key: str
    values: tuple[Any, ...]
    why: str
    excludes: tuple[str, ...] = ()
    requires: tuple[str, ...] = ()
    weight: float = 1.0
    devices: tuple[str, ...] = ("cpu", "cuda")
    not_for: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", tuple(self.values))
        object.__setattr__(self, "excludes", tuple(self.excludes))
        object.__setattr__(self, "requires", tuple(self.requires))
        object.__setattr__(self, "devices", tuple(self.devices))
        object.__setattr__(self, "not_for", tuple(self.not_for))
        unknown = sorted(set(self.not_for) - set(TRAITS))
        if unknown:
            known = ", ".join(sorted(TRAITS))
            raise ValueError(
                f"config space entry {self.key}: unknown trait(s) {unknown}; known: {known}"
            )
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
