"""Bisect a failure to the minimal set of settings it needs (ConfigFuzzer's drop-one loop).

A program failed under ``settings`` (a sample of the config space). :func:`minimal_settings`
re-checks it first with no setting at all: failing *the same way* there means the settings are
not needed (a default-path bug, minimal set ``{}``). Otherwise it drops one setting at a time,
in sorted key order, keeping each drop under which the program still fails the same way. *The
same way* is :func:`same_way`: same verdict, same stage, same :func:`torchsmith.dedup.failure_key`.

Invariants: the minimal set is a subset of ``settings``; the returned result is a real check
under exactly that set (the original check when nothing could be dropped); at most
``len(settings) + 1`` re-checks are made (the empty set, then one drop per setting); a
re-check that raises counts as "not the same way". The checker is any callable, so the logic is
tested without a compiler.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from torchsmith.dedup import failure_key
from torchsmith.verdict import CheckResult


def same_way(a: CheckResult, b: CheckResult) -> bool:
    """``b`` fails as ``a`` does: verdict, stage and failure key."""
    return a.verdict is b.verdict and a.stage == b.stage and failure_key(a) == failure_key(b)


@dataclasses.dataclass
class Bisection:
    """The minimal failing ``settings``, the check that shows them (``result``) and each
    re-check made: ``(settings tried, verdict, failed the same way)``."""

    settings: dict[str, Any]
    result: CheckResult
    sampled: dict[str, Any]
    trials: list[tuple[dict[str, Any], str, bool]] = dataclasses.field(default_factory=list)

    @property
    def default_path(self) -> bool:
        """The failure needs none of the sampled settings."""
        return not self.settings

    def meta(self) -> dict[str, Any]:
        """What a finding's ``meta.json`` records (``config_settings``, ``config_sampled``,
        ``config_trials``)."""
        return {
            "config_settings": dict(self.settings),
            "config_sampled": dict(self.sampled),
            "config_trials": [
                {"settings": s, "verdict": v, "same": same} for s, v, same in self.trials
            ],
        }


def minimal_settings(
    settings: Mapping[str, Any],
    original: CheckResult,
    recheck: Callable[[dict[str, Any]], CheckResult],
) -> Bisection:
    """The smallest subset of ``settings`` under which ``recheck`` still fails the way
    ``original`` (checked under all of ``settings``) did. See the module docstring."""
    out = Bisection(dict(settings), original, dict(settings))
    if not settings:
        return out

    def fails(trial: dict[str, Any]) -> CheckResult | None:
        try:
            r = recheck(dict(trial))
        except Exception as e:  # a torchsmith error on a re-check: not the same failure
            out.trials.append((dict(trial), f"error: {type(e).__name__}", False))
            return None
        same = same_way(original, r)
        out.trials.append((dict(trial), r.verdict.value, same))
        return r if same else None

    if (r := fails({})) is not None:
        out.settings, out.result = {}, r
        return out
    current = dict(settings)
    for key in sorted(settings):
        if len(current) == 1:
            break  # dropping the last one is the empty set, already seen passing
        trial = {k: v for k, v in current.items() if k != key}
        if (r := fails(trial)) is not None:
            current, out.result = trial, r
    out.settings = current
    return out
