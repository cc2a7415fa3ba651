"""In the worker: which config keys the worker's torch has, and the value each runs with.

Called through ``Request.call("torchsmith.configspace.present:present_job", None, options,
keys=[...])``: the parent's own torch may not be the worker's (``--python``), so the worker is
asked. Values that JSON cannot carry come back as their ``repr`` (never equal to a table
value, so they are never taken for the default).
"""

from __future__ import annotations

import importlib
import json
import warnings
from typing import Any

from torchsmith.options import CONFIG_MODULES, CheckOptions
from torchsmith.program.format import Program

_MISSING = object()


def current_value(key: str) -> Any:
    """The value config key ``key`` (``inductor.cpp.simdlen``) has here, or ``_MISSING``."""
    prefix, rest = key.split(".", 1)
    try:
        obj: Any = importlib.import_module(CONFIG_MODULES[prefix])
    except (KeyError, ImportError):
        return _MISSING
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # deprecated keys warn when read
        for part in rest.split("."):
            obj = getattr(obj, part, _MISSING)
            if obj is _MISSING:
                return _MISSING
    return obj


def present(keys: list[str]) -> dict[str, Any]:
    """``{key: value}`` for the keys this torch has (JSON-safe values)."""
    out: dict[str, Any] = {}
    for key in keys:
        value = current_value(key)
        if value is _MISSING or isinstance(value, type):
            continue  # absent, or a namespace (``inductor.cpp``), not a setting
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            value = repr(value)
        out[key] = value
    return out


def present_job(
    program: Program | None, options: CheckOptions, emit: Any, keys: list[str]
) -> dict[str, Any]:
    """The worker job: ``{"present": {key: value}, "torch": version}``."""
    import torch

    return {"present": present(list(keys)), "torch": torch.__version__}
