"""Scripts as people paste them: run whole, once per mode, with ``torch.compile`` intercepted.

A repro script from a PyTorch issue builds its inputs however it likes (helpers, loops,
factories), compiles one or more callables (``torch.compile(f, ...)``, ``@torch.compile``,
``torch._dynamo.optimize(...)(f)``, ``module.compile()``), calls them, changes a global or an
attribute and calls again. Rewriting that into a canonical program loses what happens between
the calls, so a script is judged as it stands: :class:`ScriptRunner` executes it as
``__main__`` in the worker once per mode, and every call of a compiled callable is recorded:

* **eager**: the callable runs as it is (the compile is a stand-in with ``torch.compile``'s
  semantics, :mod:`torchsmith.oracle.script_standin`), so the script goes on exactly as in eager
  PyTorch;
* **compiled**: the real ``torch.compile`` with the script's own arguments (a backend given to
  ``check``, e.g. a ladder rung, replaces the script's); its results go back to the script, as
  the user saw them; an exception inside a compiled call is the compiled run's;
* **fp64** (a dtype): each recorded call is recomputed with its inputs, the module's parameters
  (or a function's global modules and tensors) cast, while the script itself goes on with the
  eager result (whose backward goes through the float64 recomputation).

What the judge compares is the sequence of recorded calls (outputs ``calls[i]``, in order over
all compile sites), the call's tensor arguments after the call when a run mutated one in place
(``input``), and what the script's own training left (``grad``: gradients, parameters after
optimizer steps, ``torch.autograd.grad`` results, :mod:`torchsmith.oracle.script_training`).
Configuration the script sets (``torch._inductor.config.x = ...``) applies to its run and is
undone afterwards.

Per call: a call that raises in eager is invalid alone (``invalid``: not judged, named in the
verdict); the other runs end where eager's script ended. Only when no call is valid is the script
``invalid``. An exception only the compiled run raises inside torch after its calls (a backward
compiled lazily) is the compiled run's (``ScriptRun.late``: a crash unless a call's result is
already wrong).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import gc
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any

import torch

from torchsmith.options import CheckOptions
from torchsmith.oracle import runtime, script_training
from torchsmith.oracle import script_standin as standin
from torchsmith.oracle.diagnose import describe_arg
from torchsmith.oracle.inputs import map_tensors
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
    invalid: str | None = None  # eager raised in this call (``TypeError: ...``): not judged


@dataclasses.dataclass
class ScriptRun:
    """What one run of the script recorded (``out`` and ``grads`` as a ``RunResult``'s)."""

    records: list[CallRecord]
    grads: dict[str, Any] | None = None
    error: str | None = None  # the script raised after its recorded calls (compiled mode)
    #: an exception only the compiled run raised, inside torch, outside its calls (a backward
    #: compiled lazily): a crash unless the calls' results already show a failure
    late: BaseException | None = None

    @property
    def out(self) -> list[Any]:
        return [None if r.invalid else r.out for r in self.records]


def _clone(obj: Any) -> Any:
    return map_tensors(obj, lambda t: t.detach().clone())


def _nbytes(tensors: list[torch.Tensor]) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


def _summary(e: BaseException) -> str:
    line = next((ln.strip() for ln in str(e).splitlines() if ln.strip()), "")
    return f"{type(e).__name__}: {line[:300]}"


def _raised_in_torch(e: BaseException) -> bool:
    """The exception's innermost Python frame is torch's (a compile in ``backward()``), not the
    script's own (an ``assert``, or an op the script called with what it was given). An
    ``AssertionError`` (``torch.testing.assert_close``) is the script's check all the same."""
    tb = e.__traceback__
    last = None
    while tb is not None:
        last, tb = tb, tb.tb_next
    return last is not None and standin.in_torch(last.tb_frame.f_code.co_filename)


def _chain(e: BaseException | None) -> list[BaseException]:
    out: list[BaseException] = []
    while e is not None and len(out) < 8:
        out.append(e)
        e = e.__cause__ or e.__context__
    return out


class _StopScript(BaseException):
    """Eager's script ended at this call: the other runs end there too."""


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


def _unjudged(site: Any, described: list[str], invalid: Any) -> CallRecord:
    """The record of a call that is not judged: it raised in eager (``invalid`` says how)."""
    return CallRecord(site.name, None, described, site.declared, None, None, [], invalid=invalid)


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
        #: the eager run (in the check's dtype) whose invalid calls and end the others follow
        self.reference = (
            backend is None
            and dtype == runtime.resolve_dtype(runner.options.dtype)
            and transform is None
            and not context
        )
        self.records: list[CallRecord] = []
        self.ns: dict[str, Any] = {}
        self.call_error: BaseException | None = None
        self.invalid_error: BaseException | None = None
        self.training = script_training.Training(runner.filename)

    # -- compile -----------------------------------------------------------------------------
    def compile_real(self, target: Any, kwargs: dict[str, Any]) -> Any:
        if self.backend is None:
            return target
        kw = self.runner.compile_kwargs(kwargs, self.backend)
        return self.runner.real_compile(target, **kw)

    # -- calls ---------------------------------------------------------------------------------
    def call(self, site: standin.CompileSite, args: tuple, kwargs: dict) -> Any:
        index = len(self.records)
        if index >= MAX_CALLS:
            return site.real(*args, **kwargs)
        described = [describe_arg(a) for a in args] + [
            f"{k}={describe_arg(v)}" for k, v in kwargs.items()
        ]
        invalid = self.runner.invalid
        if not self.reference and index == self.runner.stop_at:
            self.records.append(_unjudged(site, described, invalid.get(index)))
            raise _StopScript
        leaves = runtime.tensor_leaves([list(args), kwargs])
        before = [t.detach().clone() for t in leaves] if _nbytes(leaves) <= SNAPSHOT_BYTES else None
        versions = [t._version for t in leaves]
        state = self._state(site)
        try:
            if self.dtype is not None or self.transform is not None:
                out = self._variant(site, args, kwargs)
                result = site.real(*args, **kwargs)  # what the script goes on with
                if self.dtype is torch.float64 and self.transform is None:
                    result, routed = script_training.route(result, out)
                    self.training.routed |= routed
            else:
                with self.context() if self.context else contextlib.nullcontext():
                    out = result = site.real(*args, **kwargs)
        except Exception as e:
            if self.reference or index in invalid:  # invalid in eager: this call is not judged
                if self.reference:
                    invalid[index] = _summary(e)
                    self.invalid_error = e
                self.records.append(_unjudged(site, described, invalid[index]))
            elif self.backend is not None:
                self.call_error = e
            raise
        mutated = any(t._version != v for t, v in zip(leaves, versions, strict=True))
        after = [t.detach().clone() for t in leaves] if mutated else None
        refs = [(f"arg{j}", t) for j, t in enumerate(leaves) if t.requires_grad and t.is_leaf]
        if site.owner is not None:
            refs += [(f"param:{n}", p) for n, p in site.owner.named_parameters()]
        else:
            refs += self._global_refs()
        self.training.touch(index, refs)
        effects = {}
        if self.dtype is None and self.transform is None:  # a variant replays, it does not act
            now = self._state(site)
            effects = {
                k: now.get(k) for k in state.keys() | now.keys() if state.get(k) != now.get(k)
            }
        record = CallRecord(
            site.name,
            _clone(out),
            described,
            site.declared,
            before,
            after,
            refs,
            effects,
            invalid=None if self.reference else invalid.get(index),
        )
        self.records.append(record)
        return result

    def _global_refs(self) -> list[tuple[str, torch.Tensor]]:
        """A compiled function's global modules' parameters and global leaf tensors that
        require grad (what its training changes)."""
        refs: list[tuple[str, torch.Tensor]] = []
        for name, value in list(self.ns.items()):
            if isinstance(value, standin.CompiledModule):
                continue  # a compiled module's calls are recorded on their own
            if isinstance(value, torch.nn.Module):
                refs += [(f"global:{name}.{n}", p) for n, p in value.named_parameters()]
            elif isinstance(value, torch.Tensor) and value.requires_grad and value.is_leaf:
                refs.append((f"global:{name}", value))
        return refs

    def _state(self, site: standin.CompileSite) -> dict[str, Any]:
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
        if site.owner is not None:
            note("self.", ((k, v) for k, v in vars(site.owner).items() if not k.startswith("_")))
        return out

    def _variant(self, site: standin.CompileSite, args: tuple, kwargs: dict) -> Any:
        """The call recomputed with its inputs and state cast (fp64) or transformed (probe);
        in the float64 run, differentiable back to the script's tensors."""
        device = self.runner.options.device
        calls = runtime.prepare_inputs([[list(args), kwargs]], device, self.dtype)
        owner = site.owner
        linked: dict[str, torch.Tensor] = {}
        if owner is not None:
            hook = owner.__dict__.pop("_compiled_call_impl", None)  # never copy our wrapper
            try:
                state: torch.nn.Module = copy.deepcopy(owner)
            finally:
                if hook is not None:
                    owner._compiled_call_impl = hook
            if self.dtype is not None:
                state = state.to(self.dtype)
            linked = script_training.trainable(owner)
        else:
            ns = {
                k: v._orig_mod if isinstance(v, standin.CompiledModule) else v
                for k, v in self.ns.items()
            }
            state = runtime.GlobalState(ns)
            if self.dtype is not None:
                state = state.to(self.dtype)
            for key, name in state.names.items():
                if isinstance(ns[name], torch.nn.Module):
                    linked.update(script_training.trainable(ns[name], f"mods.{key}."))
        if self.transform is not None:
            with torch.no_grad():
                state, calls = self.transform(state, calls)
        routing = self.dtype is torch.float64 and self.transform is None
        if routing:
            calls = script_training.link_inputs([[list(args), kwargs]], calls, self.dtype)
        saved = dict(self.ns)
        try:
            if owner is None:
                state.write_back(self.ns)  # type: ignore[operator]
                if routing:  # the global leaf tensors it trains, differentiably
                    self.ns.update(
                        {
                            n: v.to(self.dtype)
                            for n, v in saved.items()
                            if isinstance(v, torch.Tensor)
                            and v.requires_grad
                            and v.is_floating_point()
                        }
                    )
                fn = site.target
            elif site.target is owner:
                fn = state._call_impl
            else:  # a method of the module: torch.compile(model.forward), module.compile()
                fn = getattr(state, site.target.__name__)
            ((a, kw),) = calls
            with self.context() if self.context else contextlib.nullcontext():
                if routing and linked:
                    return script_training.linked_call(state, fn, linked, a, kw, self.dtype)
                return fn(*a, **kw)
        finally:
            self.ns.update(saved)

    # -- the script ----------------------------------------------------------------------------
    def execute(self, grad: bool) -> ScriptRun:
        self.ns.update({"__name__": "__main__", "__file__": self.runner.filename})
        self.ns["__builtins__"] = __builtins__
        intercept = standin.Interceptor(
            self, self.runner.filename, torch.compile, torch._dynamo.optimize
        )
        patches = intercept.patches()
        patches.append((torch.autograd, "grad", self.training.grad_fn(torch.autograd.grad)))
        originals = [(obj, name, getattr(obj, name)) for obj, name, _ in patches]
        error: str | None = None
        late: BaseException | None = None
        main = sys.modules.get("__main__")
        module = types.ModuleType("__main__")
        module.__dict__.update(self.ns)
        self.ns = module.__dict__
        if self.reference:
            self.runner.invalid.clear()
            self.runner.stop_at = None
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
                except _StopScript:
                    error = f"ended at call {len(self.records) - 1}, as eager did"
                except Exception as e:
                    error, late = self._ended(e)
                if self.call_error is not None:  # the script caught it; the compile failed
                    raise self.call_error
                if self.reference and self.records and all(r.invalid for r in self.records):
                    raise self.invalid_error  # type: ignore[misc]  # no valid call: invalid
        finally:
            for obj, name, old in originals:
                setattr(obj, name, old)
            if main is not None:
                sys.modules["__main__"] = main
            # The script's functions and classes hold its namespace in a reference cycle:
            # break it now, or every run's tensors live until the cyclic collector comes by.
            self.ns.clear()
            gc.collect()
        grads = self.training.results(as_reference=self.dtype is torch.float64)
        if late is not None:
            grads = None  # what a failed backward left is no gradient
        for r in self.records:
            r.grad_refs = []  # the script's tensors and parameters go with its run
        return ScriptRun(self.records, grads, error, late)

    def _ended(self, e: Exception) -> tuple[str, BaseException | None]:
        """The script raised ``e`` outside a failed compiled call: (what to note, an exception
        only the compiled run raised inside torch, to be judged a crash); raises ``e`` when
        the script cannot be judged at all (today's invalid, or a compiled run that failed
        before any call)."""
        if e is self.call_error:
            raise e
        ended_invalid = self.invalid_error is not None and self.invalid_error in _chain(e)
        if self.reference or (self.backend is None and self.dtype is None):
            if ended_invalid and any(r.invalid is None for r in self.records):
                self.runner.stop_at = len(self.records) - 1
                return f"ended at invalid call {len(self.records) - 1}: {_summary(e)}", None
            raise e  # in eager the script itself is wrong: the program is invalid
        if not self.records:
            raise e
        last = self.records[-1]
        if last.invalid is not None and self.runner.invalid.get(len(self.records) - 1):
            return f"ended at invalid call {len(self.records) - 1}: {_summary(e)}", None
        eager_ended = self.runner.stop_at is not None
        checked = isinstance(e, AssertionError)  # the script's own check of values
        if self.backend is not None and _raised_in_torch(e) and not eager_ended and not checked:
            return f"{_summary(e)} (after the compiled calls, compiled run only)", e
        return _summary(e), None


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
        #: set by the eager reference run: its calls that raised (index -> ``TypeError: ...``),
        #: and the call its script ended at by raising (the other runs end there too)
        self.invalid: dict[int, str] = {}
        self.stop_at: int | None = None

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
                if r.invalid:
                    state = None
                if state is not None and dtype is not None:
                    state = [t.to(dtype) if t.is_floating_point() else t for t in state]
                out.append(state)
            return out
        return run.out

    def cut(self, run: ScriptRun, like: ScriptRun) -> ScriptRun:
        """``run`` up to where ``like`` (a compiled run that raised after its calls) ended:
        the calls both made, without gradients."""
        return ScriptRun(run.records[: len(like.records)], None, run.error)

    def effects(self, run: ScriptRun) -> list[dict[str, Any]] | None:
        """Per call, the Python state it changed (None when no call changed any)."""
        effects = [r.effects for r in run.records]
        return effects if any(effects) else None

    def evidence(self) -> dict[str, Any]:
        return {"script": True, "calls": len(self.sites), "sites": list(dict.fromkeys(self.sites))}

    def invalid_calls(self) -> list[dict[str, Any]]:
        """The calls eager raised in (not judged): ``{"call", "site", "error"}`` each."""
        return [
            {
                "call": f"calls[{i}]",
                "site": self.sites[i] if i < len(self.sites) else "?",
                "error": error,
            }
            for i, error in sorted(self.invalid.items())
        ]

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
        error = result.error  # a call that raised in eager ended the script
        for r in result.records:
            site = sites.setdefault(
                r.site, {"site": r.site, "compiled_with": r.compiled_with, "calls": []}
            )
            site["calls"].append(r.args)
    except Exception as e:  # the script fails in eager: say where
        error = f"{type(e).__name__}: {str(e)[:300]}"
    return {"sites": list(sites.values()), "error": error}
