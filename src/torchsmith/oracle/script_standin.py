"""What a script gets from ``torch.compile`` while :mod:`torchsmith.oracle.script` runs it: a
stand-in with ``torch.compile``'s semantics in every mode, whose calls are recorded.

Contract (the same in eager, compiled and float64 runs, so that a script takes the same path in
each and only the compiler differs):

* ``torch.compile(module)`` gives an ``OptimizedModule`` (a subclass of it: in the compiled run
  the real one, re-classed; in eager a real ``OptimizedModule`` whose Dynamo context wraps
  nothing). Attribute reads *and writes* reach the original module, ``train()``/``eval()``,
  ``parameters()``, ``state_dict()`` (with its ``_orig_mod.`` prefix), ``_orig_mod`` and
  ``isinstance(m, nn.Module)`` behave as PyTorch's.
* ``torch.compile(fn)`` gives a callable that keeps ``fn``'s name and docstring and binds as a
  method (``@torch.compile`` on a ``def`` in a class); attributes set on it stay on it, as on
  the function PyTorch returns.
* ``torch.compile`` is a value: ``torch.compile(**options)(fn)`` (a decorator factory),
  ``functools.partial(torch.compile, backend=...)``, and compiled autograd's compiler
  (``compiled_autograd.enable(torch.compile)``): the graph module it is handed back is compiled
  in the compiled run and returned as it is in eager and float64 runs (the backward then runs
  eagerly; the gradients are judged at the end of the script).
* ``torch.compile`` called by torch itself for its own purposes is the real one.

Every call of a stand-in goes to :meth:`CompileSite.call`, the run's recorder.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import sys
import types
from collections.abc import Callable
from typing import Any, Protocol

import torch
from torch._dynamo.eval_frame import OptimizedModule

_TORCH_DIR = torch.__file__.rsplit("/", 1)[0] + "/"
_COMPILED_AUTOGRAD = "/_dynamo/compiled_autograd.py"
#: Where a stand-in module keeps its site (in its own ``__dict__``, never the original's).
_SITE_KEY = "_torchsmith_site"


class Recorder(Protocol):
    """The run side of a stand-in (``oracle.script._Run``)."""

    backend: str | None

    def compile_real(self, target: Any, kwargs: dict[str, Any]) -> Any: ...

    def call(self, site: CompileSite, args: tuple, kwargs: dict) -> Any: ...


@dataclasses.dataclass(eq=False)
class CompileSite:
    """One ``torch.compile`` of the script: what it compiled (``target``), where (``name``:
    ``line 12: f``), with what (``declared``, as written), the module whose parameters a variant
    casts (``owner``), and how to call it for real (``real``: the compiled callable in the
    compiled run, the target's own call otherwise)."""

    run: Recorder
    target: Any
    name: str
    declared: dict[str, str]
    owner: torch.nn.Module | None
    real: Callable[..., Any]

    def call(self, args: tuple, kwargs: dict) -> Any:
        return self.run.call(self, args, kwargs)


class _Passthrough:
    """The Dynamo context of eager's stand-in module: it wraps nothing."""

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        return fn


class CompiledModule(OptimizedModule):
    """``torch.compile(module)``'s result, with its calls recorded."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.__dict__[_SITE_KEY].call(args, kwargs)

    def __deepcopy__(self, memo: dict[int, Any]) -> torch.nn.Module:
        """A copy of the original module (what a float64 variant of an enclosing module
        recomputes with), never of the run behind the stand-in."""
        return copy.deepcopy(self.__dict__["_modules"]["_orig_mod"], memo)


class CompiledFunction:
    """``torch.compile(fn)``'s result, with its calls recorded: anything else (attributes,
    ``.eval()``, ``.parameters()``) goes to the compiled object or the target."""

    def __init__(self, site: CompileSite, real: Any) -> None:
        self.torchsmith_site = site
        self._real_obj = real
        self._torchdynamo_orig_callable = site.target
        if isinstance(site.target, types.FunctionType):
            functools.update_wrapper(self, site.target)

    def __getattr__(self, name: str) -> Any:
        if name == "_real_obj":  # not set yet (an object being copied)
            raise AttributeError(name)
        return getattr(self._real_obj, name)

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:  # a keyword may be named `self`
        return self.torchsmith_site.call(args, kwargs)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:  # @torch.compile on a method
        return self if obj is None else functools.partial(self.__call__, obj)

    def __deepcopy__(self, memo: dict[int, Any]) -> CompiledFunction:
        return self  # like a function: a module holding it is copied, the compile is shared


def declared_text(kwargs: dict[str, Any]) -> dict[str, str]:
    """The site's ``torch.compile`` arguments as written (a callable by its name)."""
    return {
        k: repr(v) if not callable(v) else getattr(v, "__name__", repr(v))
        for k, v in kwargs.items()
    }


def make_standin(
    run: Recorder,
    target: Any,
    name: str,
    kwargs: dict[str, Any],
    owner: torch.nn.Module | None = None,
) -> Any:
    """The stand-in for ``torch.compile(target, **kwargs)`` at site ``name``."""
    if owner is None and isinstance(target, torch.nn.Module):
        owner = target
    elif owner is None and isinstance(getattr(target, "__self__", None), torch.nn.Module):
        owner = target.__self__  # torch.compile(model.forward)
    declared = declared_text(kwargs)
    real = run.compile_real(target, kwargs)
    if isinstance(target, torch.nn.Module) and (
        run.backend is None or type(real) is OptimizedModule
    ):
        module = real if run.backend is not None else OptimizedModule(target, _Passthrough())
        if run.backend is None:
            module._torchdynamo_orig_callable = target.forward
        module.__class__ = CompiledModule
        call = functools.partial(OptimizedModule.__call__, module)
        module.__dict__[_SITE_KEY] = CompileSite(run, target, name, declared, owner, call)
        return module
    site = CompileSite(run, target, name, declared, owner, real)
    return CompiledFunction(site, real)


def in_torch(filename: str) -> bool:
    """Whether ``filename`` is one of torch's own Python files."""
    return filename.startswith(_TORCH_DIR)


def called_by_torch(depth: int = 2) -> str | None:
    """The file of the caller ``depth`` frames up when it is inside torch (the patched
    function was called by torch, not by the script), else None."""
    filename = sys._getframe(depth).f_code.co_filename
    return filename if in_torch(filename) else None


class Interceptor:
    """``torch.compile``, ``torch._dynamo.optimize`` and ``nn.Module.compile`` as the script
    sees them during one run."""

    def __init__(self, run: Recorder, filename: str, real_compile: Any, real_optimize: Any) -> None:
        self.run, self.filename = run, filename
        self.real_compile, self.real_optimize = real_compile, real_optimize

    def compile(
        self, model: Any = None, *, _owner: torch.nn.Module | None = None, **kwargs: Any
    ) -> Any:
        caller = called_by_torch()
        if caller is not None:
            if caller.endswith(_COMPILED_AUTOGRAD) and isinstance(model, torch.fx.GraphModule):
                # the script handed torch.compile to compiled autograd as its compiler
                return self.run.compile_real(model, kwargs)
            return self.real_compile(model, **kwargs)
        if model is None:  # @torch.compile(fullgraph=True), partial(torch.compile, ...)
            return lambda m: self.compile(m, **kwargs)
        frame = sys._getframe(1)
        while frame.f_code.co_filename != self.filename and frame.f_back is not None:
            frame = frame.f_back
        named = _owner if _owner is not None else model
        name = getattr(named, "__name__", None) or type(named).__name__
        return make_standin(self.run, model, f"line {frame.f_lineno}: {name}", kwargs, _owner)

    def optimize(self, *args: Any, **kw: Any) -> Any:
        if called_by_torch():  # torch.compile itself goes through optimize
            return self.real_optimize(*args, **kw)
        backend = args[0] if args else kw.get("backend", "inductor")
        fullgraph = bool(kw.get("nopython", False))
        return lambda model: self.compile(model, backend=backend, fullgraph=fullgraph)

    def module_compile(self, module: torch.nn.Module, *args: Any, **kwargs: Any) -> None:
        compiled = self.compile(module._call_impl, _owner=module, **kwargs)
        module._compiled_call_impl = compiled.__call__  # what nn.Module.compile() sets

    def patches(self) -> list[tuple[Any, str, Any]]:
        """(object, attribute, replacement) for the run to install and undo."""
        return [
            (torch, "compile", self.compile),
            (torch._dynamo, "optimize", self.optimize),
            (torch.nn.Module, "compile", lambda m, *a, **k: self.module_compile(m, *a, **k)),
        ]
