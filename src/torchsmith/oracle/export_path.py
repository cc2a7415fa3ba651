"""The deployment path as a "compiled" run: ``torch.export`` then AOTInductor, judged like
``torch.compile``.

A check whose backend is one of :data:`BACKENDS` does not call ``torch.compile``: the target is
exported and run through the steps the backend names, each rung adding one step:

``export``          ``torch.export.export`` (non-strict, the default), the exported program run
                    eagerly (``ep.module()``);
``export_decomp``   ... then ``ep.run_decompositions()`` (the core ATen decompositions), run
                    eagerly;
``aoti_compile``    ... then ``torch._inductor.aoti_compile_and_package`` builds the package,
                    but the decomposed program still runs eagerly (the build alone is tested);
``aoti``            ... then ``torch._inductor.aoti_load_package`` loads it and the package runs.

The judge (:mod:`torchsmith.oracle.jobs`) compares what the backend returns with eager and
float64 exactly as it does a compiled run; the backend ladder (:mod:`torchsmith.localize`)
walks these rungs to name the stage.

Arguments: the tensor leaves of a call are the exported program's inputs; everything else
(Python scalars, dtypes, strings, the containers) is bound as it is, so a call whose non-tensor
parts, tensor ranks or dtypes differ from an earlier call's gets its own export. A tensor dim whose size differs
between the calls of one such group, or that the program marked dynamic
(``torch._dynamo.mark_dynamic``), is exported as ``torch.export.Dim.DYNAMIC``: export refuses
(``Constraints violated``) a program that would specialize it, which is the program's fault.
The largest call of a group is the example export traces; a later call that fails a guard
export kept (a derived size of 1 in the example adds ``... < 2``) is outside the exported
program, the program's fault too: every rung checks the exported module's guards first, since a
package does not (:func:`_guarded`).

Program faults, not compiler bugs (:func:`program_fault`): ``torch.export``'s user errors
(``torch._dynamo.exc.UserError``: constraint violations, unsupported Python), guards on
data-dependent values in the program's own code (``ddguard.py``; one in torch's code is a lesser
compiler bug, as under ``torch.compile``), and what this path refuses on purpose (:class:`ExportUnsupported`: a
``before_call`` hook, gradients, ``--only``, non-tensor outputs of a package).

Packages are built under ``$TORCHSMITH_WORKDIR/aoti`` (a worker's own folder: in a campaign,
inside the campaign folder) or the system temp dir, one folder per package, deleted as soon as
the package is loaded; folders a dead worker left are removed before the next build
(:func:`prune`), so disk use stays at one package per live worker.

Runs inside workers only: it executes program code.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from torchsmith import ddguard
from torchsmith.options import CheckOptions

#: The export-path backends, in ladder order (each adds one step to the one before).
BACKENDS = ("export", "export_decomp", "aoti_compile", "aoti")

#: Exception type names that say the program is outside what ``torch.export`` takes.
USER_ERROR_TYPES = {
    "UserError",  # torch._dynamo.exc.UserError: constraint violations, unsupported Python
    "ConstraintViolationError",
}
USER_ERROR_TEXT = (
    "Constraints violated",
    "Guard failed: ",  # the exported module's input guard: export narrowed a dynamic dim
    # a Dim.DYNAMIC dim that tracing specialized (non-strict export's ValueError)
    "conflicts between user-specified ranges and inferred ranges",
)


class ExportUnsupported(Exception):
    """A program this path refuses on purpose: the program's fault, never a verdict of crash."""


def is_export_backend(backend: str | None) -> bool:
    return backend in BACKENDS


def program_fault(exc: BaseException) -> str | None:
    """Why ``exc``, raised on the export path, is the program's fault (None when it may be the
    compiler's). Conservative in the program's favour: anything ``torch.export`` reports as
    the user's (its ``UserError``, a constraint violation, a guard on a data-dependent value)
    and what this path refuses on purpose."""
    dde = ddguard.classify(exc)  # a data-dependent guard: the program's only in its own code
    if dde is not None:
        where = f": {dde.site}" if dde.site else ""
        own = f"torch.export rejects this program (a data-dependent guard in its own code{where})"
        return own if dde.is_users else None
    for e in ddguard.chain(exc):
        name = type(e).__name__
        first = (str(e).strip().splitlines() or [""])[0][:300]
        if isinstance(e, ExportUnsupported):
            return f"the export path does not take this program: {first}"
        if name in USER_ERROR_TYPES or any(t in str(e)[:2000] for t in USER_ERROR_TEXT):
            return f"torch.export rejects this program ({name}: {first})"
    return None


# -- arguments --------------------------------------------------------------------------------------
_TENSOR = "<tensor>"


def _split(obj: Any, tensors: list[torch.Tensor]) -> Any:
    """``obj`` with each tensor leaf replaced by a marker (appended to ``tensors``)."""
    if isinstance(obj, torch.Tensor):
        tensors.append(obj)
        return _TENSOR
    if isinstance(obj, list | tuple):
        items = [_split(o, tensors) for o in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)
    if isinstance(obj, dict):
        return {k: _split(v, tensors) for k, v in obj.items()}
    return obj


def _fill(template: Any, tensors: list[Any], pos: list[int]) -> Any:
    # runs inside the traced forward: a tuple of types, not ``list | tuple`` (torch 2.6's
    # strict export could not trace a types.UnionType and failed every program at `export`)
    if isinstance(template, str) and template == _TENSOR:
        pos[0] += 1
        return tensors[pos[0] - 1]
    if isinstance(template, (list, tuple)):  # noqa: UP038
        items = [_fill(o, tensors, pos) for o in template]
        return type(template)(*items) if hasattr(template, "_fields") else type(template)(items)
    if isinstance(template, dict):
        return {k: _fill(v, tensors, pos) for k, v in template.items()}
    return template


class Target(torch.nn.Module):
    """The program's target as a module of its tensor arguments: ``forward(*tensors)`` rebuilds
    the call's arguments around them (non-tensor parts bound) and calls the target."""

    def __init__(self, target: Any, template: tuple[Any, Any]) -> None:
        super().__init__()
        # A module target is registered once, as ``target`` (its parameters and buffers are the
        # exported program's): registered under two names its buffers are aliased inputs, and
        # ``run_decompositions`` refuses every program that mutates one ("expected compiled_fn
        # to be GraphModule", #166572's limitation), a failure of this harness, not the program.
        self.target = target
        self.template = template

    def forward(self, *tensors: torch.Tensor) -> Any:
        args, kwargs = _fill(self.template, list(tensors), [0])
        return self.target(*args, **kwargs)


def dynamic_dims(group: list[list[torch.Tensor]]) -> tuple[dict[int, Any] | None, ...]:
    """Per tensor argument: the dims exported as ``Dim.DYNAMIC`` (sizes differ between the
    calls of ``group``, or marked dynamic in the program), None where all are static."""
    specs: list[dict[int, Any] | None] = []
    for i, first in enumerate(group[0]):
        dims = set(getattr(first, "_dynamo_dynamic_indices", set()) or set())
        for other in group[1:]:
            t = other[i]
            if t.dim() != first.dim():
                raise ExportUnsupported(f"tensor argument {i} changes rank between calls")
            dims |= {d for d in range(t.dim()) if t.shape[d] != first.shape[d]}
        specs.append({d: torch.export.Dim.DYNAMIC for d in sorted(dims)} or None)
    return tuple(specs)


# -- packages ---------------------------------------------------------------------------------------
def package_root() -> Path:
    """Where this worker builds packages (see the module docstring)."""
    base = os.environ.get("TORCHSMITH_WORKDIR") or tempfile.gettempdir()
    root = Path(base) / "aoti"
    root.mkdir(parents=True, exist_ok=True)
    return root


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def prune(root: Path) -> int:
    """Remove package folders whose worker is gone (``pkg-<pid>-*``); returns how many."""
    removed = 0
    for d in root.glob("pkg-*"):
        try:
            pid = int(d.name.split("-")[1])
        except (IndexError, ValueError):
            continue
        if pid != os.getpid() and not _alive(pid):
            shutil.rmtree(d, ignore_errors=True)
            removed += 1
    return removed


def build_package(ep: Any, inductor_configs: dict[str, Any]) -> tuple[str, Path]:
    """``aoti_compile_and_package`` into a fresh folder; returns the package path and folder
    (the caller deletes the folder)."""
    root = package_root()
    prune(root)
    folder = Path(tempfile.mkdtemp(prefix=f"pkg-{os.getpid()}-", dir=root))
    try:
        path = torch._inductor.aoti_compile_and_package(
            ep,
            package_path=str(folder / "model.pt2"),
            inductor_configs=dict(inductor_configs) or None,
        )
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    return path, folder


# -- the run --------------------------------------------------------------------------------------
def _refuse(loaded: Any, options: CheckOptions, grad: bool) -> None:
    if loaded.before_call is not None:
        raise ExportUnsupported("before_call changes state between calls; an export is fixed")
    if grad:
        raise ExportUnsupported("gradients: an exported program is run for inference here")
    if options.only:
        raise ExportUnsupported("--only compiles one part; the export path takes the target")


def _check_exported(ep: Any, backend: str) -> None:
    """What the package could not return as eager does, refused before it is built."""
    sig = ep.graph_signature  # (inputs mutated in place: the package mutates them as eager)
    if backend in ("aoti_compile", "aoti"):
        for spec in sig.output_specs:
            arg = spec.arg
            if not hasattr(arg, "name") or type(arg).__name__ != "TensorArgument":
                raise ExportUnsupported(f"a non-tensor output ({type(arg).__name__})")


def _key(template: Any, tensors: list[torch.Tensor]) -> str:
    """Calls export together when their non-tensor parts, tensor ranks and dtypes agree."""
    return repr((template, [(t.dim(), t.dtype) for t in tensors]))


class ExportedCall:
    """The export-path stand-in for ``torch.compile(target)``: called like the target, it
    exports (once per group of calls whose non-tensor parts agree) and runs what ``backend``
    names. ``calls`` are every call's prepared ``[args, kwargs]``, to find the dynamic dims."""

    def __init__(
        self, target: Any, calls: list[list[Any]], options: CheckOptions, backend: str
    ) -> None:
        if backend not in BACKENDS:
            raise ValueError(f"not an export backend: {backend!r}")
        self.target, self.options, self.backend = target, options, backend
        self.groups: dict[str, list[list[torch.Tensor]]] = {}
        for args, kwargs in calls:
            tensors: list[torch.Tensor] = []
            key = _key(_split((list(args), dict(kwargs)), tensors), tensors)
            self.groups.setdefault(key, []).append(tensors)
        self.built: dict[str, Callable[..., Any]] = {}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        tensors: list[torch.Tensor] = []
        template = _split((list(args), dict(kwargs)), tensors)
        key = _key(template, tensors)
        if key not in self.built:
            self.built[key] = self._build(template, tensors, self.groups.get(key, [tensors]))
        return self.built[key](*tensors)

    def _build(
        self, template: Any, tensors: list[torch.Tensor], group: list[list[torch.Tensor]]
    ) -> Callable[..., Any]:
        module = Target(self.target, template)
        module.eval()
        dynamic = dynamic_dims(group)
        # ``forward(*tensors)``: one parameter, so its dims are one entry of ``dynamic_shapes``
        shapes = (dynamic,) if any(d is not None for d in dynamic) else None
        # non-strict on every release (2.13's default; 2.6 defaulted to strict, Dynamo tracing)
        # the largest call is the example: fewer sizes of 0 or 1 for export to specialize on
        example = max(group, key=lambda ts: sum(t.numel() for t in ts)) if group else tensors
        ep = torch.export.export(module, tuple(example), dynamic_shapes=shapes, strict=False)
        _check_exported(ep, self.backend)
        if self.backend == "export":
            return ep.module()
        guards = guard_check(ep.module())
        ep = ep.run_decompositions()
        if self.backend == "export_decomp":
            return _guarded(guards, ep.module())
        path, folder = build_package(ep, self.options.inductor_options)
        try:
            if self.backend == "aoti_compile":
                return _guarded(guards, ep.module())
            return _guarded(guards, torch._inductor.aoti_load_package(path))
        finally:
            shutil.rmtree(folder, ignore_errors=True)


#: How an exported module's input guard fails (``torch._assert`` in its guard function).
GUARD_FAILED = "Guard failed: "


def guard_check(module: torch.nn.Module) -> Callable[..., Any]:
    """The input-guard check of an exported program's module, without running its graph:
    its ``_guards_fn`` (the generated guards of recent releases, 2.13 included) or its forward
    pre-hooks (the older constraint check); only where neither exists the module itself (it
    checks, then runs).
    Running the graph to check would apply its buffer and input mutations twice per call."""
    fn = getattr(module, "_guards_fn", None)
    if callable(fn):
        return fn
    hooks = list(module._forward_pre_hooks.values())
    if hooks:
        return lambda *tensors: [hook(module, tensors) for hook in hooks]
    return module


def _guarded(guards: Callable[..., Any], run: Callable[..., Any]) -> Callable[..., Any]:
    """``run``, called only on calls inside the exported program's domain: export may narrow a
    dynamic dim from its example input (a derived size of 1 adds ``... < 2``), and a package
    does not check those guards, so a call outside them would be judged on garbage. ``guards``
    is :func:`guard_check` of the exported module. A failed guard is the program's fault:
    :class:`ExportUnsupported`."""

    def call(*tensors: torch.Tensor) -> Any:
        try:
            guards(*tensors)
        except AssertionError as e:
            if GUARD_FAILED not in str(e):
                raise
            first = str(e).strip().splitlines()[0][:300]
            raise ExportUnsupported(
                f"this call is outside what torch.export kept of the program ({first})"
            ) from e
        return run(*tensors)

    return call


def compiled(
    target: Any,
    calls: list[list[Any]],
    loaded: Any,
    options: CheckOptions,
    backend: str,
    grad: bool,
) -> ExportedCall:
    """The callable a check runs for an export backend (raises :class:`ExportUnsupported`
    for what this path refuses; see the module docstring)."""
    _refuse(loaded, options, grad)
    return ExportedCall(target, calls, options, backend)
