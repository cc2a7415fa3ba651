"""Inside a worker: load a program, build what it tests and run it once, in one mode.

A program tests a *target*: an ``nn.Module`` class (built from ``get_init_inputs()``) or a plain
function. It is called once with ``get_inputs()`` (and ``get_kwargs()``), or once per entry of
``get_calls()`` with ``before_call(i, target)`` run before each call: a sequence judged call by
call (an attribute or a global changed in between, a second shape that forces a recompile).

Every run starts from the same state: the program's globals are rebound to what loading left
them, inputs are fresh copies of the pristine ones (tensors that share storage in the program
share it in the copy, so views and aliasing survive; ``mark_dynamic`` marks are kept), and
torch, ``random`` and numpy are re-seeded. A run reports its outputs, gradients (with ``grad``)
and which input tensors the call mutated in place (by their version counters), so the judge can
compare the inputs after the call too.

Everything here executes program code, so it runs only in worker processes
(:mod:`torchsmith.execute.child`), never in the CLI's own process.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import importlib
import linecache
import random
import sys
import types
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

import torch

from torchsmith.options import CheckOptions, split_config
from torchsmith.oracle import export_path
from torchsmith.oracle.inputs import map_tensors, prepare_inputs, tensor_leaves, wants_grad
from torchsmith.program.format import Program

PROGRAM_MODULE = "torchsmith_program"

#: ``transform(state, inputs) -> (state, inputs)``, applied before a run (see ``run_model``).
#: ``state`` is the model, or for a function the module holding its global modules and tensors.
Transform = Callable[[torch.nn.Module, list[Any]], tuple[torch.nn.Module, list[Any]]]


class ProgramLoadError(Exception):
    """The program's own code raised while defining the target or building inputs."""


class Call(NamedTuple):
    args: list[Any]
    kwargs: dict[str, Any]


@dataclasses.dataclass
class LoadedProgram:
    program: Program
    module: types.ModuleType
    target: Any  # the nn.Module class or the function under test
    init_args: list[Any]
    init_kwargs: dict[str, Any]
    calls: list[Call]  # pristine arguments of each call, on the CPU as the program built them
    before_call: Callable[[int, Any], Any] | None
    snapshot: dict[str, Any]  # the program's globals as loading left them

    @property
    def filename(self) -> str:
        return self.module.__file__ or "<program>"

    @property
    def is_module(self) -> bool:
        return isinstance(self.target, type)

    @property
    def inputs(self) -> list[Any]:
        """The first call's positional arguments."""
        return self.calls[0].args

    @property
    def sequence(self) -> bool:
        return len(self.calls) > 1

    @property
    def model_cls(self) -> Any:  # the name older callers use
        return self.target

    def restore_globals(self) -> None:
        """Rebind every global the program had after loading (a run may have changed some)."""
        ns = self.module.__dict__
        for name, value in self.snapshot.items():
            if ns.get(name, _MISSING) is not value:
                ns[name] = value


_MISSING = object()


class RunResult(NamedTuple):
    out: Any  # the output, or the list of outputs of a call sequence
    grads: dict[str, Any] | None
    mutated: list[torch.Tensor | None]  # per input tensor leaf: its value after, if mutated


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


def register_source(program: Program, filename: str) -> None:
    """Tracebacks and the invalid-program diagnosis quote program lines from the linecache:
    a program without a file on disk is put there under its pseudo-name."""
    if program.path is None:
        lines = program.source.splitlines(keepends=True)
        linecache.cache[filename] = (len(program.source), None, lines, filename)


def _get(ns: dict[str, Any], name: str, what: str) -> Any:
    try:
        return ns[name]()
    except Exception as e:
        raise ProgramLoadError(f"{what} raised {type(e).__name__}: {e}") from e


def _as_args(value: Any, what: str) -> list[Any]:
    if isinstance(value, torch.Tensor):
        return [value]
    if not isinstance(value, list | tuple):
        raise ProgramLoadError(f"{what} must be a list of arguments, got {type(value).__name__}")
    return list(value)


def load(program: Program, seed: int = 0) -> LoadedProgram:
    """Execute the canonical source in a fresh module and build the inputs (seeded)."""
    module = types.ModuleType(PROGRAM_MODULE)
    module.__file__ = program_filename(program)
    sys.modules[PROGRAM_MODULE] = module  # lets pickling/inspect find classes
    register_source(program, module.__file__)
    seed_everything(seed)
    try:
        exec(compile(program.source, module.__file__, "exec"), module.__dict__)
    except Exception as e:
        raise ProgramLoadError(f"defining the program raised {type(e).__name__}: {e}") from e
    ns = module.__dict__
    target = ns.get(program.model)
    is_class = isinstance(target, type)
    if is_class and not issubclass(target, torch.nn.Module):
        raise ProgramLoadError(f"`{program.model}` is a class but not an nn.Module")
    if not is_class and not callable(target):
        raise ProgramLoadError(f"`{program.model}` is not an nn.Module class or a function")
    init_args: list[Any] = []
    init_kwargs: dict[str, Any] = {}
    if callable(ns.get("get_init_inputs")):
        init = _get(ns, "get_init_inputs", "get_init_inputs()")
        if isinstance(init, dict):
            init_kwargs = dict(init)
        elif init is not None:
            init_args = list(init)
    seed_everything(seed)
    kwargs: dict[str, Any] = {}
    if callable(ns.get("get_kwargs")):
        kwargs = _get(ns, "get_kwargs", "get_kwargs()")
        if not isinstance(kwargs, dict):
            raise ProgramLoadError(f"get_kwargs() must return a dict, got {type(kwargs).__name__}")
    if callable(ns.get("get_calls")):
        raw = _get(ns, "get_calls", "get_calls()")
        if not isinstance(raw, list | tuple) or not raw:
            raise ProgramLoadError("get_calls() must return a non-empty list of argument lists")
        calls = [Call(_as_args(c, f"get_calls()[{i}]"), kwargs) for i, c in enumerate(raw)]
    elif callable(ns.get("get_inputs")):
        calls = [Call(_as_args(_get(ns, "get_inputs", "get_inputs()"), "get_inputs()"), kwargs)]
    elif "inputs" in ns:
        calls = [Call(_as_args(ns["inputs"], "inputs"), kwargs)]
    else:
        raise ProgramLoadError("the program defines neither get_inputs() nor inputs")
    before = ns.get("before_call") if callable(ns.get("before_call")) else None
    return LoadedProgram(program, module, target, init_args, init_kwargs, calls, before, dict(ns))


# -- the target ------------------------------------------------------------------------------------
class GlobalState(torch.nn.Module):
    """A function program's global modules and tensors, copied for one run and held as one
    module: what a dtype cast, a precision raise or a perturbation changes (as it changes a
    model's parameters), and what keeps one run's in-place changes out of the next."""

    def __init__(self, ns: dict[str, Any]) -> None:
        super().__init__()
        self.mods = torch.nn.ModuleDict()
        self.names: dict[str, str] = {}
        for i, (name, value) in enumerate(ns.items()):
            if name.startswith("__"):
                continue
            if isinstance(value, torch.nn.Module):
                self.mods[f"m{i}"] = copy.deepcopy(value)
                self.names[f"m{i}"] = name
            elif isinstance(value, torch.Tensor):
                self.register_buffer(f"t{i}", value.detach().clone())
                self.names[f"t{i}"] = name

    def write_back(self, ns: dict[str, Any]) -> None:
        for key, name in self.names.items():
            ns[name] = self.mods[key] if key in self.mods else getattr(self, key)


def build_model(loaded: LoadedProgram, seed: int, device: str, dtype: torch.dtype | None) -> Any:
    """A fresh target: a model built with the same seed gives the same parameters every time;
    a function is returned as it is (see :func:`run_model` for its globals)."""
    if not loaded.is_module:
        return loaded.target
    seed_everything(seed)
    model = loaded.target(*copy.deepcopy(loaded.init_args), **copy.deepcopy(loaded.init_kwargs))
    model.eval()
    if dtype is not None:
        model = model.to(dtype)
    return model.to(device)


def resolve_dtype(name: str | None) -> torch.dtype | None:
    return getattr(torch, name) if name else None


@contextlib.contextmanager
def compiler_config(options: CheckOptions) -> Iterator[None]:
    """Apply the oracle's fixed settings plus the user's ``--config`` entries for one job."""
    groups = split_config(options.config)
    groups.setdefault("torch._inductor.config", {}).setdefault("fallback_random", True)
    with contextlib.ExitStack() as stack:
        for modname, entries in groups.items():
            mod = importlib.import_module(modname)
            for key in entries:
                _check_config_entry(mod, modname, key)
            stack.enter_context(mod.patch(entries))
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
    return [t for t in tensor_leaves(obj) if t.is_floating_point()]


def run_model(
    loaded: LoadedProgram,
    options: CheckOptions,
    *,
    backend: str | None,
    dtype: torch.dtype | None,
    grad: bool,
    transform: Transform | None = None,
    context: Callable[[], contextlib.AbstractContextManager[Any]] | None = None,
) -> RunResult:
    """Build a fresh target and run it once: eagerly when ``backend`` is None, else compiled.

    Re-seeds before building and before running (the pt2 template's rule). With ``grad`` it also
    back-propagates a seeded cotangent and returns the gradients of float inputs and parameters.
    ``transform(state, inputs) -> (state, inputs)`` runs (without grad) before the call and
    ``context()`` is entered around the calls and backward: the sensitivity probe's eager
    variants (:mod:`torchsmith.oracle.perturb`).
    """
    device = options.device
    loaded.restore_globals()
    ns = loaded.module.__dict__
    model = build_model(loaded, options.seed, device, dtype)
    if loaded.is_module:
        state: torch.nn.Module = model
    else:
        state = GlobalState(loaded.snapshot)
        if dtype is not None:
            state = state.to(dtype)
        state = state.to(device)
    calls = prepare_inputs([list(c) for c in loaded.calls], device, dtype, grad=grad)
    if transform is not None:
        with torch.no_grad():
            state, calls = transform(state, calls)
    if loaded.is_module:
        model = state
    else:
        state.write_back(ns)  # type: ignore[operator]
    fn: Callable[..., Any] = model
    if backend is not None and export_path.is_export_backend(backend):
        torch._dynamo.reset()  # the deployment path: torch.export, then AOTInductor
        fn = export_path.compiled(model, calls, loaded, options, backend, grad)
    elif backend is not None:
        torch._dynamo.reset()
        fn = torch.compile(model, **options.compile_kwargs(backend)) if not options.only else model
    if options.only:  # --only NAME: compile just that part; a bad name fails eager runs too
        from torchsmith.oracle.only import OnlyError, compile_only

        kwargs = options.compile_kwargs(backend) if backend is not None else None
        try:
            fn = compile_only(model, ns, options.only, kwargs)
        except OnlyError as e:
            raise ProgramLoadError(str(e)) from e
    leaves = tensor_leaves(calls)
    versions = [t._version for t in leaves]
    before = [_bytes_of(t) for t in leaves]
    seed_everything(options.seed)
    try:
        with context() if context is not None else contextlib.nullcontext():
            out, grads = _call(fn, model, state, calls, loaded, options, grad)
    finally:
        if context is not None and backend is None:
            # Eager higher-order ops (map, scan) compile their body with Dynamo; under a
            # dispatch mode with gradients that fails, and torch 2.13 then skips the frame for
            # good: every later eager `map` returns its raw tuple (bench/found/
            # map_after_dispatch_mode_returns_tuple.py). A reset forgets the skip.
            torch._dynamo.reset()
    mutated = [
        t.detach() if t._version != v or _changed(t, b) else None
        for t, v, b in zip(leaves, versions, before, strict=True)
    ]
    return RunResult(out, grads, mutated)


def _bytes_of(t: torch.Tensor) -> torch.Tensor | None:
    """A copy of ``t``'s elements as bytes (None when it has none to copy: a sparse tensor)."""
    try:
        return t.detach().reshape(-1).clone().view(torch.uint8)
    except (RuntimeError, NotImplementedError, TypeError):
        return None


def _changed(t: torch.Tensor, before: torch.Tensor | None) -> bool:
    """Whether ``t``'s elements differ from ``before`` bit for bit. The version counter alone
    misses mutations AOTAutograd hides from autograd: a compiled batch norm updates its running
    stats without bumping their versions, and the run read as leaving them unchanged."""
    now = _bytes_of(t)
    return before is not None and now is not None and not torch.equal(now, before)


def inputs_after(loaded: LoadedProgram, run: RunResult, dtype: torch.dtype | None) -> list[Any]:
    """The input tensors after a run: the mutated ones as the run left them, the others as the
    program built them (cast like the run's inputs)."""
    pristine = tensor_leaves([list(c) for c in loaded.calls])
    out = []
    for before, after in zip(pristine, run.mutated, strict=True):
        if after is None:
            cast = dtype is not None and before.is_floating_point()
            after = before.to(dtype) if cast else before
        out.append(after)
    return out


def synchronize(device: str) -> None:
    """Wait for the kernels a run queued on ``device``: a CUDA kernel's fault (an illegal or
    misaligned address) is raised asynchronously, at the next call that waits, so without this
    a compiled run's faulty kernel surfaced in the comparison after it, a torchsmith error
    instead of a crash in the compiled phase. Nothing to do on the CPU."""
    kind = torch.device(device).type
    if kind == "cuda" and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def device_fault() -> str | None:
    """Why this process's CUDA context can run no more kernels, or None when it can (or was
    never used).

    Some CUDA faults (an illegal or misaligned address, a device-side assert) are sticky: every
    later kernel launch and copy in the process raises the same error. Measured on an H100 with
    torch 2.11: one compiled program's misaligned-address kernel turned the next 1948 jobs of its
    long-lived worker into torchsmith errors. A tiny kernel and a synchronize after each job tell
    a spent context from a healthy one (an out-of-memory error is not sticky and passes)."""
    if not (torch.cuda.is_available() and torch.cuda.is_initialized()):
        return None
    try:
        torch.ones(1, device="cuda").add_(1).cpu()
        torch.cuda.synchronize()
    except Exception as e:  # any failure here means the context is spent
        return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]
    return None


class ProgramRunner:
    """Runs a canonical program in one mode after another (what the judge and the probe ask
    of any runner; :class:`torchsmith.oracle.script.ScriptRunner` is the other one)."""

    def __init__(self, loaded: LoadedProgram, options: CheckOptions) -> None:
        self.loaded, self.options = loaded, options
        self.filename = loaded.filename
        self.out_prefix = "calls" if loaded.sequence else "out"

    def run(
        self,
        backend: str | None,
        dtype: torch.dtype | None,
        *,
        transform: Transform | None = None,
        context: Callable[[], contextlib.AbstractContextManager[Any]] | None = None,
        grad: bool | None = None,
    ) -> RunResult:
        if grad is None:  # --grad, or inputs the program made require grad: a backward too
            grad = self.options.grad or wants_grad(self.loaded.calls)
        kw = {"backend": backend, "dtype": dtype, "grad": grad, "transform": transform}
        return run_model(self.loaded, self.options, context=context, **kw)

    def compiled_backend(self, requested: str | None) -> str:
        """The backend of the compiled run: the one asked for (a ladder rung), else the
        options'."""
        return requested or self.options.backend

    def mutated(self, run: RunResult) -> bool:
        return any(m is not None for m in run.mutated)

    def part(self, run: RunResult, prefix: str, dtype: torch.dtype | None) -> Any:
        """What ``run`` observed under ``prefix``: outputs (``out``, or ``calls`` for a call
        sequence), the inputs after the call (``input``), or gradients (``grad``)."""
        if prefix == "grad":
            return run.grads
        if prefix == "input":
            return inputs_after(self.loaded, run, dtype)
        return run.out

    def evidence(self) -> dict[str, Any]:
        return {"calls": len(self.loaded.calls)} if self.loaded.sequence else {}

    def where(self, path: str) -> str:
        return path


def _call(
    fn: Callable[..., Any],
    model: Any,
    state: torch.nn.Module,
    calls: list[list[Any]],
    loaded: LoadedProgram,
    options: CheckOptions,
    grad: bool,
) -> tuple[Any, dict[str, Any] | None]:
    outs = []
    with torch.set_grad_enabled(grad or wants_grad(calls)):
        for i, (args, kwargs) in enumerate(calls):
            if loaded.before_call is not None:
                loaded.before_call(i, model)
            outs.append(fn(*args, **kwargs))
    out = outs if loaded.sequence else outs[0]
    if not grad:
        if any(t.layout != torch.strided or t.requires_grad for t in tensor_leaves(out)):
            out = _detach(out)  # only then: containers are rebuilt
        return out, None
    leaves = [t for t in _float_leaves(out) if t.requires_grad]
    grads: dict[str, Any] = {}
    if leaves:
        gen = torch.Generator().manual_seed(options.seed + 1)
        total = sum(
            (t * torch.randn(t.shape, generator=gen, dtype=torch.float64).to(t)).sum()
            for t in leaves
        )
        total.backward()
        # an unused input's gradient: None in eager, zeros from a higher-order op's backward
        # (torch.cond returns zeros by design, #141301): "equivalent in practice", so both
        # are judged as zeros; a wrong gradient still differs in value
        for i, t in enumerate(_float_leaves(calls)):
            grads[f"input{i}"] = t.grad if t.grad is not None else torch.zeros_like(t)
        for name, p in state.named_parameters():
            grads[f"param:{name}"] = p.grad if p.grad is not None else torch.zeros_like(p)
    return _detach(out), grads


def _detach(obj: Any) -> Any:
    """Outputs as the judge reads them: detached, and a sparse (or other non-strided) tensor
    as its dense values (the comparisons have no sparse kernels; a layout that differs
    between eager and compiled is not judged)."""
    return map_tensors(obj, lambda t: _dense(t.detach()))


def _dense(t: torch.Tensor) -> torch.Tensor:
    if t.layout == torch.strided or t.is_meta:
        return t
    try:
        return t.to_dense()
    except (RuntimeError, NotImplementedError):
        return t
