"""A config space: entries, a user's table file, what the installed torch has, and the sampler.

A :class:`Space` holds :class:`Entry` rows (the default table, :mod:`.table`, or a user's JSON
or TOML file, :func:`load_space`). :meth:`Space.resolved` keeps what a given torch has (asked
in the worker, :mod:`.present`): entries whose key it lacks go, values equal to its default go,
and so do entries left without a value or meant for another device. :meth:`Space.sample`
draws the settings of one program.

Invariants: a sample never holds an excluded combination (:meth:`Space.allowed`), never a key
the caller fixed, never more than ``max_settings`` entries; the same seed, weights and space
give the same sample; whether a seed gets a sample at all (:meth:`Space.sampled`) depends on
the seed and ``share`` alone, never on the weights, so a campaign decides early which programs
may be packed together (they must share one configuration).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from torchsmith.configspace.entry import Entry, matches, parse_atom
from torchsmith.configspace.table import DEFAULT_TABLE

#: How many settings one sample holds: 1 to 4, smaller sets more often (easier to bisect).
SIZE_WEIGHTS = (0.4, 0.3, 0.2, 0.1)
#: The share of a campaign's programs checked under a sample (the rest: the default path).
DEFAULT_SHARE = 0.5


@dataclasses.dataclass(frozen=True)
class Space:
    """Entries and how many programs get a sample (``share``) of up to ``max_settings``."""

    entries: tuple[Entry, ...]
    share: float = DEFAULT_SHARE
    max_settings: int = 4
    source: str = "default"

    def __post_init__(self) -> None:
        keys = [e.key for e in self.entries]
        dup = sorted({k for k in keys if keys.count(k) > 1})
        if dup:
            raise ValueError(f"config space {self.source}: keys listed twice: {', '.join(dup)}")
        if not 0.0 <= self.share <= 1.0:
            raise ValueError(f"config space {self.source}: share must be in [0, 1]")
        if not 1 <= self.max_settings <= len(SIZE_WEIGHTS):
            raise ValueError(f"config space {self.source}: max_settings must be 1 to 4")

    @property
    def keys(self) -> list[str]:
        return [e.key for e in self.entries]

    def entry(self, key: str) -> Entry | None:
        return next((e for e in self.entries if e.key == key), None)

    # -- what the installed torch has -------------------------------------------------------
    def resolved(self, present: Mapping[str, Any], device: str = "cpu") -> Space:
        """The entries a torch has: ``present`` maps each key it has to its default value
        (keys it lacks are absent). Values equal to the default are dropped, and so are
        entries left with none, entries for other devices, and requirements it lacks."""
        kind = device.split(":", 1)[0]
        out = []
        for e in self.entries:
            if e.key not in present or kind not in e.devices:
                continue
            values = tuple(v for v in e.values if not _same(v, present[e.key]))
            if not values or any(parse_atom(a)[0] not in present for a in e.requires):
                continue
            out.append(dataclasses.replace(e, values=values))
        return dataclasses.replace(self, entries=tuple(out))

    # -- sampling ------------------------------------------------------------------------------
    def sampled(self, seed: int) -> bool:
        """Whether program ``seed`` is checked under a sample (the seed and ``share`` alone)."""
        return random.Random(f"configspace-share-{seed}").random() < self.share

    def allowed(self, settings: Mapping[str, Any], key: str, value: Any) -> bool:
        """Whether ``key=value`` may join ``settings``: no exclusion either way."""
        new = self.entry(key)
        for k, v in settings.items():
            if k == key:
                if v != value:
                    return False
                continue
            old = self.entry(k)
            if new is not None and any(matches(a, k, v) for a in new.excludes):
                return False
            if old is not None and any(matches(a, key, value) for a in old.excludes):
                return False
        return True

    def sample(
        self,
        seed: int,
        weights: Mapping[str, float] | None = None,
        fixed: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The settings of program ``seed``: empty unless :meth:`sampled`; else 1 to
        ``max_settings`` entries drawn by ``weights`` (default: each entry's own), each with
        one of its values, plus what they require (counted in the size). ``fixed`` (the user's ``--config``) is never
        overridden and counts for the exclusions."""
        if not self.sampled(seed):
            return {}
        rng = random.Random(f"configspace-{seed}")
        fixed = dict(fixed or {})
        size = rng.choices(range(1, self.max_settings + 1), SIZE_WEIGHTS[: self.max_settings])[0]
        pool = {e.key: (weights or {}).get(e.key, e.weight) for e in self.entries}
        pool = {k: w for k, w in pool.items() if w > 0 and k not in fixed}
        chosen: dict[str, Any] = {}
        while pool and len(chosen) < size:
            key = rng.choices(list(pool), list(pool.values()))[0]
            del pool[key]
            entry = self.entry(key)
            assert entry is not None
            value = rng.choice(entry.values)
            extra = {key: value, **dict(parse_atom(a) for a in entry.requires)}
            trial = {**fixed, **chosen}
            if len(chosen) + len(set(extra) - set(chosen)) > size:
                continue  # with what it requires it would not fit
            if all(self.allowed(trial, k, v) for k, v in extra.items()) and self.consistent(
                {**chosen, **extra}
            ):
                chosen.update(extra)
                for k in extra:
                    pool.pop(k, None)
        return chosen

    def consistent(self, settings: Mapping[str, Any]) -> bool:
        """No two settings of ``settings`` exclude each other."""
        items = list(settings.items())
        return all(self.allowed(dict(items[:i]), k, v) for i, (k, v) in enumerate(items))


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b) and type(a) is type(b) or (a is None and b is None)
    except Exception:
        return False


# -- a user's table ---------------------------------------------------------------------------
def load_space(spec: str | Path | None) -> Space:
    """``"default"`` (or None): the curated table; else a JSON or TOML file in the same format
    (``notes/config-space.md``). Raises ``ValueError`` naming what is wrong."""
    if spec is None or str(spec) == "default":
        return Space(DEFAULT_TABLE)
    path = Path(spec)
    if not path.is_file():
        raise ValueError(f"--config-space {spec}: no such file (or say 'default')")
    text = path.read_text()
    try:
        if path.suffix == ".toml":
            import tomllib

            data = tomllib.loads(text)
        else:
            data = json.loads(text)
    except ValueError as e:  # JSONDecodeError and TOMLDecodeError are ValueErrors
        raise ValueError(f"--config-space {spec}: cannot read it: {e}") from None
    return space_from_dict(data, source=str(path))


_TOP = {"settings", "share", "max_settings"}
_FIELDS = {f.name for f in dataclasses.fields(Entry)}


def space_from_dict(data: Any, source: str = "<dict>") -> Space:
    """A :class:`Space` from ``{"settings": [{"key", "values", "why", ...}], "share",
    "max_settings"}``; unknown keys are refused, not ignored."""
    if not isinstance(data, dict) or not isinstance(data.get("settings"), list):
        raise ValueError(f"config space {source}: needs a 'settings' list")
    if unknown := set(data) - _TOP:
        raise ValueError(f"config space {source}: unknown keys {sorted(unknown)}")
    entries = []
    for i, row in enumerate(data["settings"]):
        if not isinstance(row, dict):
            raise ValueError(f"config space {source}: settings[{i}] is not a table")
        if unknown := set(row) - _FIELDS:
            raise ValueError(f"config space {source}: settings[{i}]: unknown {sorted(unknown)}")
        try:
            entries.append(Entry(**{k: _tuple(v) for k, v in row.items()}))
        except (TypeError, ValueError) as e:
            raise ValueError(f"config space {source}: settings[{i}]: {e}") from None
    share = float(data.get("share", DEFAULT_SHARE))
    return Space(tuple(entries), share, int(data.get("max_settings", 4)), source)


def _tuple(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def describe(settings: Mapping[str, Any]) -> str:
    """``inductor.freezing=True, dynamo.specialize_float=False`` (sorted; ``-`` when empty)."""
    return ", ".join(f"{k}={v!r}" for k, v in sorted(settings.items())) or "-"
