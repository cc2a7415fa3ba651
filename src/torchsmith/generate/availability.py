"""Which generator families can run in a campaign: their imports, checked once when it starts.

A family (a registered generator, or a ``module:factory``) declares what it imports, as class
attributes of its factory:

* ``requires``: modules its *generator* imports in torchsmith's own process, where programs are
  generated (``opinfo``: PyTorch's OpInfo database, which imports ``expecttest`` and ``numpy``);
* ``program_requires``: modules its *programs* import where they run, in the workers, which run
  under another interpreter with ``--python``. Every program imports ``torch``: it is always
  probed, a family need not declare it.

:func:`left_out` imports the first kind here and probes the second in the workers' interpreter
(one short subprocess in the workers' environment, :func:`~torchsmith.execute.protocol.worker_env`;
in this process when the workers run this interpreter) and returns ``{family: reason}`` for the
families that cannot run. :func:`without` gives the generator options minus those families.

Invariants: a campaign calls :func:`runnable` once per session, before its first program: a
family that cannot run is left out with one message (and the campaign's summary lists it under
``families_left_out``), never one error row per program it would have made; a campaign whose
generator, or every family of its mix, cannot run fails before its first program with the
reasons. A probe that cannot run at all (no such interpreter, a hang) leaves every family in:
the worker pool then reports the interpreter's own failure.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import subprocess
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from torchsmith.execute.protocol import same_python, worker_env
from torchsmith.generate.mix import parse_weights
from torchsmith.generate.protocol import REGISTRY

if TYPE_CHECKING:
    from torchsmith.campaign.config import CampaignConfig

#: What every program imports where it runs.
ALWAYS_IN_WORKER = ("torch",)
PROBE_TIMEOUT_S = 180.0
_MARK = "TORCHSMITH-IMPORT-PROBE "
_PROBE = f"""
import importlib, json, sys
failed = {{}}
for name in sys.argv[1:]:
    try:
        importlib.import_module(name)
    except BaseException as e:
        failed[name] = (type(e).__name__ + ": " + str(e))[:300]
print({_MARK!r} + json.dumps(failed), flush=True)
"""


def families_of(generator: str, options: Mapping[str, Any]) -> list[str]:
    """The families a generator draws from: a mix's families, else the generator itself."""
    if generator == "mix":
        return list(parse_weights(options.get("families")))
    return [generator]


def declared(family: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(requires, program_requires)`` of a family (empty for an unknown name: building it
    reports that)."""
    target = REGISTRY.get(family, family)
    if ":" not in target:
        return (), ()
    modname, attr = target.split(":", 1)
    try:
        factory = getattr(importlib.import_module(modname), attr)
    except (ImportError, AttributeError):
        return (), ()
    return (
        tuple(getattr(factory, "requires", ())),
        tuple(getattr(factory, "program_requires", ())),
    )


def import_here(modules: Iterable[str]) -> dict[str, str]:
    """``{module: error}`` for the modules that fail to import in this process."""
    failed: dict[str, str] = {}
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception as e:  # an import may fail with anything, not only ImportError
            failed[name] = f"{type(e).__name__}: {e}"[:300]
    return failed


def import_in(python: str | None, modules: Iterable[str]) -> dict[str, str] | None:
    """``{module: error}`` for the modules that fail to import in the workers' interpreter
    ``python`` (in its worker environment); None when the probe itself could not run."""
    modules = list(dict.fromkeys(modules))
    if same_python(python):
        return import_here(modules)
    assert python is not None
    try:
        proc = subprocess.run(
            [python, "-c", _PROBE, *modules],
            env=worker_env(python=python),
            capture_output=True,
            text=True,
            timeout=PROBE_TIMEOUT_S,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    for line in reversed(proc.stdout.splitlines()):
        if line.startswith(_MARK):
            try:
                return {str(k): str(v) for k, v in json.loads(line[len(_MARK) :]).items()}
            except ValueError:
                return None
    return None


def left_out(generator: str, options: Mapping[str, Any], python: str | None) -> dict[str, str]:
    """``{family: reason}`` for the families of ``generator`` whose imports fail here or in the
    workers' interpreter ``python`` (None: this one)."""
    needs = {f: declared(f) for f in families_of(generator, options)}
    out: dict[str, str] = {}
    for family, (here, _) in needs.items():
        failed = import_here(here)
        if failed:
            name, err = next(iter(failed.items()))
            out[family] = f"needs {name} in torchsmith's Python: {err}"
    in_worker = [m for f, (_, w) in needs.items() if f not in out for m in w]
    failed_there = import_in(python, [*ALWAYS_IN_WORKER, *in_worker]) or {}
    where = "the workers' Python" if same_python(python) else f"--python {python}"
    for family, (_, worker) in needs.items():
        missing = [m for m in (*ALWAYS_IN_WORKER, *worker) if m in failed_there]
        if family not in out and missing:
            out[family] = f"needs {missing[0]} in {where}: {failed_there[missing[0]]}"
    return out


def without(
    generator: str, options: Mapping[str, Any], dropped: Mapping[str, str]
) -> dict[str, Any]:
    """The generator options with the ``dropped`` families left out of a mix; ValueError when
    nothing is left to run (the generator itself, or every family of the mix)."""
    opts = dict(options)
    if not dropped:
        return opts
    reasons = "; ".join(f"{f}: {r}" for f, r in dropped.items())
    if generator != "mix":
        raise ValueError(f"generator {generator} cannot run here: {reasons}")
    weights = {f: w for f, w in parse_weights(options.get("families")).items() if f not in dropped}
    if not weights:
        raise ValueError(f"no family of the mix can run here: {reasons}")
    opts["families"] = weights
    return opts


def runnable(config: CampaignConfig, progress: Any, writer: Any, probe: bool = True) -> Any:
    """The campaign's config for this session with the families that cannot run here left out
    of its mix (the stored parameters keep what was asked: a later session probes again).

    One ``progress.event("warning", ...)`` per family left out; ``{family: reason}`` stored as
    the campaign parameter ``families_left_out`` through ``writer`` (the store's one writer).
    Raises ValueError (:func:`without`) when nothing can run. ``probe=False`` (a campaign given
    its own generator factory): the config as it is.
    """
    if not probe:
        return config
    dropped = left_out(config.generator, config.gen_options, config.python)
    for family, reason in dropped.items():
        progress.event("warning", f"family {family} left out: {reason}")
    writer.call(lambda store: store.set_params(families_left_out=dropped))
    options = without(config.generator, config.gen_options, dropped)
    return dataclasses.replace(config, gen_options=options) if dropped else config


__all__ = [
    "ALWAYS_IN_WORKER",
    "declared",
    "families_of",
    "import_here",
    "import_in",
    "left_out",
    "runnable",
    "without",
]
