"""Inside a worker: load a program, build its model and run it in one mode.

Everything here executes program code, so it runs only in worker processes
(:mod:`torchsmith.execute.worker`), never in the CLI's own process.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import importlib
import random
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import torch

from torchsmith.options import CheckOptions, split_config
from torchsmith.program.format import Program

PROGRAM_MODULE = "torchsmith_program"

#: ``transform(model, inputs) -> (model, inputs)``, applied before a run (see ``run_model``).
Transform = Callable[[torch.nn.Module, list[Any]], tuple[torch.nn.Module, list[Any]]]


class ProgramLoadError(Exception):
    """The program's own code raised while defining the model or building inputs."""


@dataclasses.dataclass
class LoadedProgram:
    program: Program
    module: types.ModuleType
    model_cls: type
    init_args: list[Any]
    init_kwargs: dict[str, Any]
    inputs: list[Any]  # pristine inputs on the CPU as the program built them

    @property
    def filename(self) -> str:
        return self.module.__file__ or "<program>"


def seed_everything(seed: int) -> None:
    torch.manual_seed(seed)
    random.seed(seed)
    try:
        import numpy as np

        np.random.seed(seed)
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass


def program_filename(program: Program) -> str:
    """The filename tracebacks show for program code: its path, or a stable pseudo-name."""
    return program.path or f"<torchsmith:{program.name}>"


def load(program: Program, seed: int = 0) -> LoadedProgram:
    """Execute the canonical source in a fresh module and build the inputs (seeded)."""
    module = types.ModuleType(PROGRAM_MODULE)
    module.__file__ = program_filename(program)
    sys.modules[PROGRAM_MODULE] = module  # lets pickling/inspect find classes
    if program.path is None:
        import linecache

        # Tracebacks and the diagnosis quote program lines from the linecache.
        linecache.cache[module.__file__] = (
            len(program.source),
            None,
            program.source.splitlines(keepends=True),
            module.__file__,
        )
    seed_everything(seed)
    try:
        code = compile(program.source, module.__file__, "exec")
        exec(code, module.__dict__)
    except Exception as e:
        raise ProgramLoadError(f"defining the program raised {type(e).__name__}: {e}") from e
    ns = module.__dict__
    model_cls = ns.get(program.model)
    if not isinstance(model_cls, type) or not issubclass(model_cls, torch.nn.Module):
        raise ProgramLoadError(f"`{program.model}` is not an nn.Module class after loading")
    init_args: list[Any] = []
    init_kwargs: dict[str, Any] = {}
    if callable(ns.get("get_init_inputs")):
        try:
            init = ns["get_init_inputs"]()
        except Exception as e:
            raise ProgramLoadError(f"get_init_inputs() raised {type(e).__name__}: {e}") from e
        if isinstance(init, dict):
            init_kwargs = dict(init)
        elif init is not None:
            init_args = list(init)
    seed_everything(seed)
    if callable(ns.get("get_inputs")):
        try:
            inputs = ns["get_inputs"]()
        except Exception as e:
            raise ProgramLoadError(f"get_inputs() raised {type(e).__name__}: {e}") from e
    elif "inputs" in ns:
        inputs = ns["inputs"]
    else:
        raise ProgramLoadError("the program defines neither get_inputs() nor inputs")
    if isinstance(inputs, torch.Tensor):
        inputs = [inputs]
    if not isinstance(inputs, list | tuple):
        raise ProgramLoadError(f"inputs must be a list of arguments, got {type(inputs).__name__}")
    return LoadedProgram(program, module, model_cls, init_args, init_kwargs, list(inputs))


def _map_tensors(obj: Any, fn: Callable[[torch.Tensor], Any]) -> Any:
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if isinstance(obj, list | tuple):
        mapped = [_map_tensors(o, fn) for o in obj]
        return type(obj)(mapped) if not hasattr(obj, "_fields") else type(obj)(*mapped)
    if isinstance(obj, dict):
        return {k: _map_tensors(v, fn) for k, v in obj.items()}
    return obj


def prepare_inputs(
    inputs: list[Any], device: str, dtype: torch.dtype | None, grad: bool = False
) -> list[Any]:
    """Fresh copies of the inputs, moved and cast; float leaves require grad when asked."""

    def one(t: torch.Tensor) -> torch.Tensor:
        t = t.detach().clone()
        if dtype is not None and t.is_floating_point():
            t = t.to(dtype)
        t = t.to(device)
        if grad and t.is_floating_point():
            t.requires_grad_(True)
        return t

    return _map_tensors(inputs, one)


def build_model(
    loaded: LoadedProgram, seed: int, device: str, dtype: torch.dtype | None
) -> torch.nn.Module:
    """A fresh model: the same seed gives the same parameters on every call."""
    seed_everything(seed)
    model = loaded.model_cls(*copy.deepcopy(loaded.init_args), **copy.deepcopy(loaded.init_kwargs))
    model.eval()
    if dtype is not None:
        model = model.to(dtype)
    return model.to(device)


def resolve_dtype(name: str | None) -> torch.dtype | None:
    return getattr(torch, name) if name else None


@contextlib.contextmanager
def compiler_config(options: CheckOptions) -> Iterator[None]:
    """Apply the oracle's fixed settings plus the user's ``--config`` entries for one job."""
    patches: list[Any] = []
    groups = split_config(options.config)
    groups.setdefault("torch._inductor.config", {}).setdefault("fallback_random", True)
    with contextlib.ExitStack() as stack:
        for modname, entries in groups.items():
            mod = importlib.import_module(modname)
            for key in entries:
                _check_config_entry(mod, modname, key)
            patches.append(stack.enter_context(mod.patch(entries)))
        yield


def _check_config_entry(mod: Any, modname: str, key: str) -> None:
    obj = mod
    parts = key.split(".")
    for part in parts[:-1]:
        obj = getattr(obj, part, None)
        if obj is None:
            raise KeyError(f"{modname} has no entry {key!r}")
    if not hasattr(obj, parts[-1]):
        raise KeyError(f"{modname} has no entry {key!r}")


def _float_leaves(obj: Any) -> list[torch.Tensor]:
    out: list[torch.Tensor] = []
    _map_tensors(obj, lambda t: out.append(t) if t.is_floating_point() else None)
    return out


def run_model(
    loaded: LoadedProgram,
    options: CheckOptions,
    *,
    backend: str | None,
    dtype: torch.dtype | None,
    grad: bool,
    transform: Transform | None = None,
    context: Callable[[], contextlib.AbstractContextManager[Any]] | None = None,
) -> tuple[Any, dict[str, Any] | None]:
    """Build a fresh model and run it once: eagerly when ``backend`` is None, else compiled.

    Re-seeds before building and before running (the pt2 template's rule). With ``grad`` it also
    back-propagates a seeded cotangent and returns the gradients of float inputs and parameters.
    ``transform(model, inputs) -> (model, inputs)`` runs (without grad) before the call and
    ``context()`` is entered around forward and backward: the sensitivity probe's eager variants
    (:mod:`torchsmith.oracle.perturb`).
    """
    device = options.device
    model = build_model(loaded, options.seed, device, dtype)
    inputs = prepare_inputs(loaded.inputs, device, dtype, grad=grad)
    if transform is not None:
        with torch.no_grad():
            model, inputs = transform(model, inputs)
    fn: Callable[..., Any] = model
    if backend is not None:
        torch._dynamo.reset()
        fn = torch.compile(model, **options.compile_kwargs(backend))
    seed_everything(options.seed)
    with context() if context is not None else contextlib.nullcontext():
        return _call(fn, model, inputs, options, grad)


def _call(
    fn: Callable[..., Any],
    model: torch.nn.Module,
    inputs: list[Any],
    options: CheckOptions,
    grad: bool,
) -> tuple[Any, dict[str, Any] | None]:
    if not grad:
        with torch.no_grad():
            out = fn(*inputs)
        return out, None
    out = fn(*inputs)
    leaves = [t for t in _float_leaves(out) if t.requires_grad]
    grads: dict[str, Any] = {}
    if leaves:
        gen = torch.Generator().manual_seed(options.seed + 1)
        total = sum(
            (t * torch.randn(t.shape, generator=gen, dtype=torch.float64).to(t)).sum()
            for t in leaves
        )
        total.backward()
        for i, t in enumerate(_float_leaves(inputs)):
            grads[f"input{i}"] = t.grad
        for name, p in model.named_parameters():
            grads[f"param:{name}"] = p.grad
    return _detach(out), grads


def _detach(obj: Any) -> Any:
    return _map_tensors(obj, lambda t: t.detach())
