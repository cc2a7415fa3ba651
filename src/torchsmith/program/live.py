"""A live ``nn.Module`` or function with its inputs, as a program a worker can load.

The judge runs in worker processes, so the object has to get there: :func:`live_program` saves
the object and its inputs with ``torch.save`` into a file and writes a canonical program
(``class Model`` wrapping the module, or ``fn`` calling the function; ``get_inputs``,
``get_kwargs``) that loads that file. ``torch.save`` pickles classes and functions *by
reference* (module and qualified name), so in the worker:

* the module that defines them is imported by name (the worker sees this process's
  ``sys.path``); failing that, it is loaded from its source file (a test file collected by
  pytest with ``--import-mode=importlib``, a folder not on ``sys.path``), running its top level;
* limits: classes and functions must be defined at the top level of a module that has a file.
  A class or function defined inside a function, a lambda, or anything defined in ``__main__``
  (a script run directly, a notebook) cannot be loaded there: :func:`live_program` raises
  ``TypeError`` saying so, before any worker runs.

Invariants: the program names its saved file by absolute path, so it lives as long as the file
(the caller owns ``folder``); the worker builds a fresh deep copy of the saved module for every
run (eager, fp64, compiled), so a run that casts or mutates the model cannot leak into another.
"""

from __future__ import annotations

import pickle
import sys
from pathlib import Path
from typing import Any

import torch

from torchsmith.program.format import Program

_TEMPLATE = """import copy
import importlib
import importlib.util
import sys

import torch


def _load(path, files):
    for name, file in files.items():
        if name in sys.modules:
            continue
        try:
            importlib.import_module(name)
        except ImportError:
            spec = importlib.util.spec_from_file_location(name, file)
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
    return torch.load(path, weights_only=False)


_SAVED = _load({path!r}, {files!r})
{target}

def get_inputs():
    return list(_SAVED["inputs"])


def get_kwargs():
    return dict(_SAVED["kwargs"])
"""
_MODULE_TARGET = """

class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = copy.deepcopy(_SAVED["target"])

    def forward(self, *args, **kwargs):
        return self.inner(*args, **kwargs)

"""
_FN_TARGET = """

def fn(*args, **kwargs):
    return _SAVED["target"](*args, **kwargs)

"""


def _defining_modules(target: Any) -> dict[str, str]:
    """``{module name: source file}`` of the classes and functions ``target`` is made of (the
    module's submodules, or the function); TypeError for what cannot be loaded by reference."""
    objs: list[Any] = []
    if isinstance(target, torch.nn.Module):
        objs = [type(m) for m in target.modules()]
    else:
        objs = [target]
    out: dict[str, str] = {}
    for obj in objs:
        qualname = getattr(obj, "__qualname__", repr(obj))
        modname = getattr(obj, "__module__", None) or ""
        if "<locals>" in qualname or "<lambda>" in qualname:
            raise TypeError(
                f"{qualname} is defined inside a function: a worker cannot load it; define it"
                " at the top level of a module"
            )
        if modname == "__main__":
            raise TypeError(
                f"{qualname} is defined in __main__: a worker cannot load it; define it in an"
                " importable module (a file)"
            )
        file = getattr(sys.modules.get(modname), "__file__", None)
        if file and modname != "torch" and not modname.startswith("torch."):
            out[modname] = str(Path(file).resolve())
    return out


def live_program(
    target: Any,
    inputs: list[Any] | tuple[Any, ...],
    folder: Path,
    kwargs: dict[str, Any] | None = None,
    name: str | None = None,
) -> Program:
    """``target`` (an ``nn.Module`` or a callable) called with ``inputs`` (and ``kwargs``) as a
    canonical program that loads them from ``folder/<name>.pt`` (see the module docstring)."""
    if not isinstance(target, torch.nn.Module) and not callable(target):
        raise TypeError(f"expected an nn.Module or a function, got {type(target).__name__}")
    if not isinstance(inputs, list | tuple):
        raise TypeError(f"inputs must be a list or tuple of arguments, got {type(inputs).__name__}")
    files = _defining_modules(target)
    name = name or getattr(target, "__name__", None) or type(target).__name__
    folder.mkdir(parents=True, exist_ok=True)
    path = (folder / f"{name}.pt").resolve()
    saved = {"target": target, "inputs": list(inputs), "kwargs": dict(kwargs or {})}
    try:
        torch.save(saved, path)
    except (pickle.PicklingError, AttributeError, TypeError) as e:
        raise TypeError(f"{name}: cannot be saved for the worker: {e}") from e
    is_module = isinstance(target, torch.nn.Module)
    target_src = _MODULE_TARGET if is_module else _FN_TARGET
    source = _TEMPLATE.format(path=str(path), files=files, target=target_src)
    return Program(source=source, model="Model" if is_module else "fn", name=name, origin="library")


__all__ = ["live_program"]
