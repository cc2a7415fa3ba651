"""Scripts as people paste them: run whole, once per mode, with ``torch.compile`` intercepted.

A repro script from a PyTorch issue builds its inputs however it likes (helpers, loops,
factories), compiles one or more callables (``torch.compile(f, ...)``, ``@torch.compile``,
``torch._dynamo.optimize(...)(f)``, ``module.compile()``), calls them, changes a global or an
attribute and calls again. Rewriting that into a canonical program loses what happens between
the calls, so a script is judged as it stands: :class:`ScriptRunner` executes it as
``__main__`` in the worker once per mode, and every call of a compiled callable is recorded:

* **eager**: the callable runs as it is (the compile is a no-op), so the script goes on exactly
  as in eager PyTorch;
* **compiled**: the real ``torch.compile`` with the script's own arguments (a backend given to
  ``check``, e.g. a ladder rung, replaces the script's); its results go back to the script, as
  the user saw them; an exception inside a compiled call is the compiled run's;
* **fp64** (a dtype): each recorded call is recomputed with its inputs, the module's parameters
  (or a function's global modules and tensors) cast, while the script itself goes on with the
  eager result.

What the judge compares is the sequence of recorded calls (outputs ``calls[i]``, in order over
all compile sites), the call's tensor arguments after the call when a run mutated one in place
(``input``), and the gradients the script's own ``backward()`` left on those arguments and on a
compiled module's parameters (``grad``, judged without a float64 reference). Configuration the
script sets (``torch._inductor.config.x = ...``) applies to its run and is undone afterwards.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import gc
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import torch

from torchsmith.options import CheckOptions
from torchsmith.oracle import runtime
from torchsmith.oracle.diagnose import describe_arg
from torchsmith.program.format import Program

#: The compiled run's backend when each compile site keeps the script's own.
OWN = "script's own"
#: Calls recorded per run, over all sites (a benchmark loop calls thousands of times).
MAX_CALLS = 32
#: Inputs larger than this are not copied before a call: their mutation is compared only when
#: both runs mutate them.
SNAPSHOT_BYTES = 64 << 20
_CONFIGS = ("torch._inductor.config", "torch._dynamo.config", "torch._functorch.config")


@dataclasses.dataclass
class CallRecord:
    site: str
    out: Any
    args: list[str]  # what the call was given, described (``[2, 10] float32``, ``3``)
    compiled_with: dict[str, str]  # the site's own torch.compile arguments, as written
    before: list[torch.Tensor] | None  # the tensor arguments before the call, if small enough
    after: list[torch.Tensor] | None  # ... after it, when the call mutated one of them
    grad_refs: list[tuple[str, torch.Tensor]]
    effects: dict[str, Any] = dataclasses.field(default_factory=dict)  # Python state it changed


@dataclasses.dataclass
class ScriptRun:
    """What one run of the script recorded (``out`` and ``grads`` as a ``RunResult``'s)."""

    records: list[CallRecord]
    grads: dict[str, Any] | None = None
    error: str | None = None  # the script raised after its recorded calls (compiled mode)

    @property
    def out(self) -> list[Any]:
        return [r.out for r in self.records]


_TORCH_DIR = torch.__file__.rsplit("/", 1)[0] + "/"


def _called_by_torch() -> bool:
    """True when the patched function was called from inside torch (not by the script)."""
    return sys._getframe(2).f_code.co_filename.startswith(_TORCH_DIR)


def _clone(obj: Any) -> Any:
    return runtime._map_tensors(obj, lambda t: t.detach().clone())


def _nbytes(tensors: list[torch.Tensor]) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


@contextlib.contextmanager
def _restored_state() -> Iterator[None]:
    """Undo what a script changes in the process: configs, default dtype, grad mode."""
    import importlib

    mods = [importlib.import_module(m) for m in _CONFIGS]
    saved = [m.save_config() for m in mods]  # type: ignore[attr-defined]
    dtype, grad = torch.get_default_dtype(), torch.is_grad_enabled()
    try:
        yield
    finally:
        for m, s in zip(mods, saved, strict=True):
            m.load_config(s)  # type: ignore[attr-defined]
        torch.set_default_dtype(dtype)
        torch.set_grad_enabled(grad)


class _Compiled:
    """What the script gets back from ``torch.compile``: calls are recorded; anything else
    (attributes, ``.eval()``, ``.parameters()``) goes to the compiled object or the target."""

    def __init__(
        self,
        run: _Run,
        target: Any,
        site: str,
        kwargs: dict[str, Any],
        owner: torch.nn.Module | None = None,
    ) -> None:
        self._run, self._target, self._site = run, target, site
        self._kwargs = {
            k: repr(v) if not callable(v) else getattr(v, "__name__", repr(v))
            for k, v in kwargs.items()
        }
        #: the module whose parameters a variant casts (the target, or for ``module.compile()``
        #: the module whose ``_call_impl`` is compiled)
        self._owner = (
            owner
            if owner is not None
            else (target if isinstance(target, torch.nn.Module) else None)
        )
        self._real = run.compile_real(target, kwargs)
        if isinstance(target, types.FunctionType):
            functools.update_wrapper(self, target)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:  # a keyword may be named `self`
        return self._run.call(self, args, kwargs)

    def __get__(self, obj: Any, objtype: Any = None) -> Any:  # @torch.compile on a method
        return self if obj is None else functools.partial(self.__call__, obj)


class _Run:
    """One execution of the script in one mode."""

    def __init__(
        self,
        runner: ScriptRunner,
        backend: str | None,
        dtype: torch.dtype | None,
        transform: runtime.Transform | None,
        context: Callable[[], contextlib.AbstractContextManager[Any]] | None,
    ) -> None:
        self.runner, self.backend, self.dtype = runner, backend, dtype
        self.transform, self.context = transform, context
        self.records: list[CallRecord] = []
        self.ns: dict[str, Any] = {}
        self.originals: dict[str, Any] = {}
        self.call_error: BaseException | None = None

    # -- compile -----------------------------------------------------------------------------
    def compile_real(self, target: Any, kwargs: dict[str, Any]) -> Any:
        if self.backend is None:
            return target
        kw = self.runner.compile_kwargs(kwargs, self.backend)
        return self.runner.real_compile(target, **kw)

    def fake_compile(
        self, model: Any = None, *, _owner: torch.nn.Module | None = None, **kwargs: Any
    ) -> Any:
        if _called_by_torch():
            return self.originals["compile"](model, **kwargs)
        if model is None:  # @torch.compile(fullgraph=True)
            return lambda m: self.fake_compile(m, **kwargs)
        frame = sys._getframe(1)
        while frame.f_code.co_filename != self.runner.filename and frame.f_back is not None:
            frame = frame.f_back
        named = _owner if _owner is not None else model
        name = getattr(named, "__name__", None) or type(named).__name__
        site = f"line {frame.f_lineno}: {name}"
        return _Compiled(self, model, site, kwargs, _owner)

    def fake_optimize(self, *args: Any, **kw: Any) -> Any:
        if _called_by_torch():  # torch.compile itself goes through optimize
            return self.originals["optimize"](*args, **kw)
        backend = args[0] if args else kw.get("backend", "inductor")
        fullgraph = bool(kw.get("nopython", False))
        return lambda model: self.fake_compile(model, backend=backend, fullgraph=fullgraph)

    def module_compile(self, module: torch.nn.Module, *args: Any, **kwargs: Any) -> None:
        compiled = self.fake_compile(module._call_impl, _owner=module, **kwargs)
        module._compiled_call_impl = compiled.__call__  # what nn.Module.compile() sets

    # -- calls ---------------------------------------------------------------------------------
    def call(self, wrapper: _Compiled, args: tuple, kwargs: dict) -> Any:
        if len(self.records) >= MAX_CALLS:
            return wrapper._real(*args, **kwargs)
        leaves = runtime.tensor_leaves([list(args), kwargs])
        before = [t.detach().clone() for t in leaves] if _nbytes(leaves) <= SNAPSHOT_BYTES else None
        versions = [t._version for t in leaves]
        state = self._state(wrapper)
        if self.dtype is not None or self.transform is not None:
            out = self._variant(wrapper, args, kwargs)
            result = wrapper._real(*args, **kwargs)  # what the script goes on with
        else:
            try:
                with self.context() if self.context else contextlib.nullcontext():
                    out = result = wrapper._real(*args, **kwargs)
            except Exception as e:
                if self.backend is not None:
                    self.call_error = e
                raise
        mutated = any(t._version != v for t, v in zip(leaves, versions, strict=True))
        after = [t.detach().clone() for t in leaves] if mutated else None
        refs = [(f"arg{j}", t) for j, t in enumerate(leaves) if t.requires_grad and t.is_leaf]
        if wrapper._owner is not None:
            refs += [(f"param:{n}", p) for n, p in wrapper._owner.named_parameters()]
        described = [describe_arg(a) for a in args] + [
            f"{k}={describe_arg(v)}" for k, v in kwargs.items()
        ]
        effects = {}
        if self.dtype is None and self.transform is None:  # a variant replays, it does not act
            now = self._state(wrapper)
            effects = {
                k: now.get(k) for k in state.keys() | now.keys() if state.get(k) != now.get(k)
            }
        record = CallRecord(
            wrapper._site, _clone(out), described, wrapper._kwargs, before, after, refs, effects
        )
        self.records.append(record)
        return result

    def _state(self, wrapper: _Compiled) -> dict[str, Any]:
        """The script's Python state a call may change, as exact values: globals, attributes of
        the script's classes and of the compiled module that are ints, bools, strings or None,
        and the lengths of lists, tuples, dicts and sets (never floats: those round)."""
        out: dict[str, Any] = {}

        def note(prefix: str, items: Any) -> None:
            for name, value in list(items):
                if str(name).startswith("__"):
                    continue
                if (
                    value is None
                    or isinstance(value, bool | int | str)
                    and not isinstance(value, torch.Tensor)
                ):
                    out[f"{prefix}{name}"] = value
                elif isinstance(value, list | tuple | dict | set):
                    out[f"{prefix}{name}#len"] = len(value)

        note("", self.ns.items())
        for name, value in list(self.ns.items()):
            if isinstance(value, type) and value.__module__ == "__main__":
                note(f"{name}.", vars(value).items())
        if wrapper._owner is not None:
            note(
                "self.", ((k, v) for k, v in vars(wrapper._owner).items() if not k.startswith("_"))
            )
        return out

    def _variant(self, wrapper: _Compiled, args: tuple, kwargs: dict) -> Any:
        """The call recomputed with its inputs and state cast (fp64) or transformed (probe)."""
        device = self.runner.options.device
        calls = runtime.prepare_inputs([[list(args), kwargs]], device, self.dtype)
        owner = wrapper._owner
        if owner is not None:
            hook = owner.__dict__.pop("_compiled_call_impl", None)  # never copy our wrapper
            try:
                state: torch.nn.Module = copy.deepcopy(owner)
            finally:
                if hook is not None:
                    owner._compiled_call_impl = hook
            if self.dtype is not None:
                state = state.to(self.dtype)
        else:
            state = runtime.GlobalState(self.ns)
            if self.dtype is not None:
                state = state.to(self.dtype)
        if self.transform is not None:
            with torch.no_grad():
                state, calls = self.transform(state, calls)
        saved = dict(self.ns)
        try:
            if owner is None:
                state.write_back(self.ns)  # type: ignore[operator]
            fn = wrapper._target if owner is None else state._call_impl
            ((a, kw),) = calls
            with self.context() if self.context else contextlib.nullcontext():
                return fn(*a, **kw)
        finally:
            self.ns.update(saved)

    # -- the script ----------------------------------------------------------------------------
    def execute(self, grad: bool) -> ScriptRun:
        self.ns.update({"__name__": "__main__", "__file__": self.runner.filename})
        self.ns["__builtins__"] = __builtins__
        patches = [
            (torch, "compile", self.fake_compile),
            (torch._dynamo, "optimize", self.fake_optimize),
            (torch.nn.Module, "compile", lambda m, *a, **k: self.module_compile(m, *a, **k)),
        ]
        originals = [(obj, name, getattr(obj, name)) for obj, name, _ in patches]
        self.originals = {name: old for _, name, old in originals}
        error: str | None = None
        main = sys.modules.get("__main__")
        module = types.ModuleType("__main__")
        module.__dict__.update(self.ns)
        self.ns = module.__dict__
        try:
            with _restored_state():
                for obj, name, new in patches:
                    setattr(obj, name, new)
                sys.modules["__main__"] = module
                runtime.seed_everything(self.runner.options.seed)
                try:
                    exec(self.runner.code, self.ns)
                except SystemExit as e:
                    if e.code not in (None, 0):
                        error = f"SystemExit({e.code})"
                except Exception as e:
                    if e is self.call_error:
                        raise
                    if not self.records or (self.backend is None and self.dtype is None):
                        raise  # in eager the script itself is wrong: the program is invalid
                    error = f"{type(e).__name__}: {str(e)[:300]}"
                if self.call_error is not None:  # the script caught it; the compile failed
                    raise self.call_error
        finally:
            for obj, name, old in originals:
                setattr(obj, name, old)
            if main is not None:
                sys.modules["__main__"] = main
            # The script's functions and classes hold its namespace in a reference cycle:
            # break it now, or every run's tensors live until the cyclic collector comes by.
            self.ns.clear()
            gc.collect()
        grads = None
        if grad or any(r.grad_refs for r in self.records):
            grads = {
                f"call{i}.{name}": (t.grad.detach().clone() if t.grad is not None else None)
                for i, r in enumerate(self.records)
                for name, t in r.grad_refs
            }
            grads = {k: v for k, v in grads.items() if v is not None} or None
        for r in self.records:
            r.grad_refs = []  # the script's tensors and parameters go with its run
        return ScriptRun(self.records, grads, error)


class ScriptRunner:
    """Runs a script in one mode after another (the runner interface of
    :class:`torchsmith.oracle.runtime.ProgramRunner`)."""

    out_prefix = "calls"

    def __init__(self, program: Program, options: CheckOptions) -> None:
        self.program, self.options = program, options
        self.filename = runtime.program_filename(program)
        runtime.register_source(program, self.filename)
        try:
            self.code = compile(program.source, self.filename, "exec")
        except SyntaxError as e:
            raise runtime.ProgramLoadError(f"the script does not parse: {e}") from e
        self.real_compile = torch.compile
        self.sites: list[str] = []

    def compiled_backend(self, requested: str | None) -> str:
        """A ladder rung when one is asked for; a ``--backend`` the user chose; otherwise
        :data:`OWN`: each compile site keeps the backend the script gives it."""
        if requested:
            return requested
        return self.options.backend if self.options.backend != CheckOptions().backend else OWN

    def compile_kwargs(self, declared: dict[str, Any], backend: str) -> dict[str, Any]:
        """The script's own compile arguments, with the check's backend (unless :data:`OWN`)
        and its non-default settings (``--fullgraph``, ``--dynamic``, ``--mode``) on top."""
        kw = dict(declared)
        if backend == OWN:
            backend = kw.get("backend", "inductor")
            if not isinstance(backend, str):  # a callable backend of the script's own
                kw.setdefault("backend", backend)
                return kw
        ours = self.options.compile_kwargs(backend)
        defaults = CheckOptions()
        kw["backend"] = backend
        for key in ("fullgraph", "dynamic", "mode"):
            if getattr(self.options, key) != getattr(defaults, key) and key in ours:
                kw[key] = ours[key]
        if backend != "inductor":
            kw.pop("mode", None)
            kw.pop("options", None)
        return kw

    def run(
        self,
        backend: str | None,
        dtype: torch.dtype | None,
        *,
        transform: runtime.Transform | None = None,
        context: Callable[[], contextlib.AbstractContextManager[Any]] | None = None,
        grad: bool | None = None,
    ) -> ScriptRun:
        if backend is not None:
            torch._dynamo.reset()
        run = _Run(self, backend, dtype, transform, context)
        result = run.execute(self.options.grad if grad is None else grad)
        if not result.records and backend is None and dtype is None and transform is None:
            raise runtime.ProgramLoadError(
                "the script never calls a compiled function or module (no torch.compile,"
                " @torch.compile, torch._dynamo.optimize or .compile() whose result it calls)"
            )
        self.sites = [r.site for r in result.records]
        return result

    def mutated(self, run: ScriptRun) -> bool:
        return any(r.after is not None for r in run.records)

    def part(self, run: ScriptRun, prefix: str, dtype: torch.dtype | None) -> Any:
        if prefix == "grad":
            return run.grads
        if prefix == "input":
            out = []
            for r in run.records:
                state = r.after if r.after is not None else r.before
                if state is not None and dtype is not None:
                    state = [t.to(dtype) if t.is_floating_point() else t for t in state]
                out.append(state)
            return out
        return run.out

    def effects(self, run: ScriptRun) -> list[dict[str, Any]] | None:
        """Per call, the Python state it changed (None when no call changed any)."""
        effects = [r.effects for r in run.records]
        return effects if any(effects) else None

    def evidence(self) -> dict[str, Any]:
        return {"script": True, "calls": len(self.sites), "sites": list(dict.fromkeys(self.sites))}

    def where(self, path: str) -> str:
        """``calls[1][0]`` -> ``calls[1][0] (line 12: f)``: which compile site made the call."""
        if path.startswith(("calls[", "input[")):
            i = int(path.split("[", 2)[1].split("]", 1)[0])
            if i < len(self.sites):
                return f"{path} ({self.sites[i]})"
        return path


SITES_JOB = "torchsmith.oracle.script:sites_job"


def sites_job(program: Program, options: CheckOptions, emit: Any) -> dict[str, Any]:
    """Worker job behind ``torchsmith import``: run the script once in eager and say what it
    compiles and calls: per compile site, its ``torch.compile`` arguments and each call's
    arguments (``{"sites": [...], "error": ...}``)."""
    from torchsmith.verdict import Phase

    emit(Phase.EAGER)
    sites: dict[str, dict[str, Any]] = {}
    error = None
    try:
        with runtime.compiler_config(options):
            result = _Run(ScriptRunner(program, options), None, None, None, None).execute(False)
        for r in result.records:
            site = sites.setdefault(
                r.site, {"site": r.site, "compiled_with": r.compiled_with, "calls": []}
            )
            site["calls"].append(r.args)
    except Exception as e:  # the script fails in eager: say where
        error = f"{type(e).__name__}: {str(e)[:300]}"
    return {"sites": list(sites.values()), "error": error}
