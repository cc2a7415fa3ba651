"""Explain why a test program is invalid: which torch op broke which constraint.

A program whose eager run raises is not a compiler bug.  :func:`diagnose` runs it
under :class:`OpRecorder`, a ``TorchFunctionMode`` that notes the innermost
torch-level call an exception escaped from (``torch.mm``, ``Tensor.view``,
``F.conv2d`` ...) and describes its arguments.  The exception message is then
matched against the ordered table of known constraints (:mod:`torchsmith.oracle.constraints`) to
name the broken constraint in plain words, e.g.::

    `torch.mm` got `[2, 10]` and `[2, 10]`: not row-column aligned (mat1 and mat2 ...)
"""

from __future__ import annotations

import linecache
import os
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

from torchsmith.jsonable import Jsonable
from torchsmith.oracle.constraints import match_constraint

__all__ = [
    "InvalidEvidence",
    "OpRecorder",
    "describe_arg",
    "diagnose",
    "explain_exception",
    "match_constraint",
    "op_name",
]

_MAX_REPR = 60
_MAX_MESSAGE = 300
_MAX_FAILURES = 16
_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep
_THIS_FILE = os.path.abspath(__file__)

# Tensor dunder methods shown as the operator the user wrote.
_OPERATORS = {
    "__add__": "+",
    "__radd__": "+",
    "__iadd__": "+=",
    "__sub__": "-",
    "__rsub__": "-",
    "__isub__": "-=",
    "__mul__": "*",
    "__rmul__": "*",
    "__imul__": "*=",
    "__matmul__": "@",
    "__rmatmul__": "@",
    "__truediv__": "/",
    "__rtruediv__": "/",
    "__itruediv__": "/=",
    "__floordiv__": "//",
    "__rfloordiv__": "//",
    "__mod__": "%",
    "__rmod__": "%",
    "__pow__": "**",
    "__rpow__": "**",
    "__and__": "&",
    "__rand__": "&",
    "__or__": "|",
    "__ror__": "|",
    "__xor__": "^",
    "__rxor__": "^",
    "__lshift__": "<<",
    "__rshift__": ">>",
    "__eq__": "==",
    "__ne__": "!=",
    "__lt__": "<",
    "__le__": "<=",
    "__gt__": ">",
    "__ge__": ">=",
    "__neg__": "unary -",
    "__invert__": "~",
    "__getitem__": "[]",
    "__setitem__": "[]=",
}
_REFLECTED = {n for n in _OPERATORS if n.startswith("__r") and n not in ("__rshift__",)}


# --------------------------------------------------------------------------- naming


def op_name(func: Any) -> str:
    """A readable name for a ``__torch_function__`` func: ``torch.mm``, ``F.linear``,
    ``Tensor.view``, ``+``, ``Tensor.shape``."""
    name = getattr(func, "__name__", None) or ""
    qual = getattr(func, "__qualname__", None) or name
    module = getattr(func, "__module__", None) or ""
    if name == "__get__":  # property getter, e.g. Tensor.shape
        resolved = torch.overrides.resolve_name(func) or ""
        return (
            resolved.replace("torch.Tensor.", "Tensor.").removesuffix(".__get__") or "Tensor.<attr>"
        )
    if qual.startswith(("TensorBase.", "Tensor.")):  # Tensor method or operator
        if name in _OPERATORS:
            return _OPERATORS[name]
        if not name.startswith("_") and callable(getattr(torch, name, None)):
            return f"torch.{name}"
        return f"Tensor.{name}"
    if module in ("torch", "torch._C._VariableFunctions", "torch._C._nn", "torch.nn.functional"):
        if getattr(F, name, None) is func or module in ("torch._C._nn", "torch.nn.functional"):
            return f"F.{name}" if hasattr(F, name) else f"torch._C._nn.{name}"
        return f"torch.{name}"
    return _shorten(f"{module}.{qual}" if module else qual) or repr(func)[:_MAX_REPR]


def _shorten(full: str) -> str:
    for long, short in (
        ("torch.nn.functional.", "F."),
        ("torch._tensor.Tensor.", "Tensor."),
        ("torch.nn.modules.", "nn."),
        ("torch.nn.", "nn."),
    ):
        if full.startswith(long):
            return short + full[len(long) :]
    return full


def _safe_name(func: Any) -> str:
    try:
        return op_name(func)
    except Exception:
        return f"<{type(func).__name__}>"


def _short(text: str, limit: int = _MAX_REPR) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shape(t: torch.Tensor) -> str:
    return "[" + ", ".join(str(s) for s in t.shape) + "]"


def describe_arg(value: Any, with_dtype: bool = True) -> str:
    """``[2, 10] float32`` for tensors (device added if not cpu), repr for scalars,
    summaries for lists of tensors, a short repr for anything else."""
    try:
        if isinstance(value, torch.Tensor):
            if not with_dtype:
                return _shape(value)
            text = f"{_shape(value)} {str(value.dtype).removeprefix('torch.')}"
            if value.device.type != "cpu":
                text += f" {value.device}"
            return text
        if isinstance(value, (list, tuple)) and any(isinstance(v, torch.Tensor) for v in value):
            parts = [describe_arg(v, with_dtype) for v in value[:4]]
            if len(value) > 4:
                parts.append(f"… ({len(value)} items)")
            open_, close = ("[", "]") if isinstance(value, list) else ("(", ")")
            return open_ + ", ".join(parts) + close
        if isinstance(value, torch.Size):
            return _short(repr(tuple(value)))
        if isinstance(value, torch.dtype):
            return str(value)
        if isinstance(value, torch.device):
            return str(value)
        if isinstance(value, torch.nn.Module):
            return _module_repr(value)
        return _short(repr(value))
    except Exception:  # a broken __repr__ must not hide the real error
        return f"<{type(value).__name__}>"


# --------------------------------------------------------------------------- recording


@dataclass
class _Failure:
    """One exception escaping one recorded call, described at the raise point."""

    exc: BaseException
    op: str
    args: list[str]
    kwargs: dict[str, str]
    short_args: list[str]  # tensors as bare shapes, for the summary
    shapes: list[tuple[int, ...]]  # shapes of the tensor arguments, in order
    dtypes: list[str]
    outer: list[str]  # calls still in progress around it, outermost first
    int_range: tuple[int, int] | None = None  # (min, max) of the first integer tensor


class OpRecorder(TorchFunctionMode):
    """Record the torch-level calls in progress and the innermost one an exception
    escaped from.  Results and exceptions pass through unchanged.

    Note: while a mode handles a call the mode is switched off, so calls made *inside*
    a torch function implemented in Python (``F.batch_norm`` calling
    ``torch.batch_norm``) are not seen; the recorded op is the innermost call made by
    non-torch code (the program, or an ``nn.Module.forward``).  The stack still nests
    correctly if ``__torch_function__`` is re-entered.
    """

    def __init__(self) -> None:
        super().__init__()
        self._calls: list[Any] = []  # funcs of the calls in progress, outermost first
        self.failures: list[_Failure] = []

    @property
    def stack(self) -> list[str]:
        """Names of the torch-level calls in progress, outermost first."""
        return [_safe_name(f) for f in self._calls]

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        self._calls.append(func)
        try:
            return func(*args, **kwargs)
        except Exception as exc:
            if self.failure_for(exc, chained=False) is None:
                self._record(func, args, kwargs, exc)
            raise
        finally:
            self._calls.pop()

    def _record(self, func: Any, args: tuple, kwargs: dict, exc: BaseException) -> None:
        try:
            name = _safe_name(func)
            args = tuple(args)
            if getattr(func, "__name__", "") in _REFLECTED:
                args = args[::-1]  # reflected operator: show operands as written
            tensors: list[torch.Tensor] = []
            for a in (*args, *kwargs.values()):
                if isinstance(a, torch.Tensor):
                    tensors.append(a)
                elif isinstance(a, (list, tuple)):
                    tensors += [t for t in a if isinstance(t, torch.Tensor)]
            failure = _Failure(
                exc=exc,
                op=name,
                args=[describe_arg(a) for a in args],
                kwargs={str(k): describe_arg(v) for k, v in kwargs.items()},
                short_args=[describe_arg(a, with_dtype=False) for a in args],
                shapes=[tuple(t.shape) for t in tensors],
                dtypes=[str(t.dtype).removeprefix("torch.") for t in tensors],
                outer=[_safe_name(f) for f in self._calls[:-1]],
                int_range=_int_range(tensors),
            )
        except Exception:
            failure = _Failure(exc, _safe_name(func), [], {}, [], [], [], [])
        self.failures.append(failure)
        del self.failures[:-_MAX_FAILURES]

    def failure_for(self, exc: BaseException, chained: bool = True) -> _Failure | None:
        """The recorded failure for ``exc`` (or, if ``chained``, for the nearest
        exception in its ``__cause__`` / ``__context__`` chain)."""
        seen: set[int] = set()
        cur: BaseException | None = exc
        while cur is not None and id(cur) not in seen:
            seen.add(id(cur))
            for failure in reversed(self.failures):
                if failure.exc is cur:
                    return failure
            if not chained:
                return None
            cur = cur.__cause__ or cur.__context__
        return None


def _int_range(tensors: list[torch.Tensor]) -> tuple[int, int] | None:
    for t in tensors:
        if t.dtype in (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8):
            if t.device.type == "cpu" and 0 < t.numel() <= 10_000_000:
                with torch._C.DisableTorchFunction():
                    return int(t.min()), int(t.max())
    return None


# --------------------------------------------------------------------------- constraints


# --------------------------------------------------------------------------- evidence


@dataclass
class InvalidEvidence(Jsonable):
    """Why the eager run of a program raised: the op, its arguments, the constraint."""

    op: str
    args: list[str]
    kwargs: dict[str, str]
    exc_type: str
    message: str
    constraint: str | None
    module: str | None
    user_line: str | None
    summary: str
    outer_ops: list[str] = field(default_factory=list)


def _message(exc: BaseException) -> str:
    text = str(exc)
    if isinstance(exc, KeyError) and len(exc.args) == 1:
        text = repr(exc.args[0])
    text = text.split("\nException raised from", 1)[0]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return _short(" ".join(lines[:2]), _MAX_MESSAGE)


def _frames(exc: BaseException) -> list[tuple[Any, int]]:
    return list(traceback.walk_tb(exc.__traceback__))


def _same_file(a: str, b: str) -> bool:
    return a == b or os.path.realpath(a) == os.path.realpath(b)


def _user_line(frames: list[tuple[Any, int]], program_filename: str | None) -> str | None:
    for frame, lineno in reversed(frames):
        filename = frame.f_code.co_filename
        if program_filename is not None:
            if not _same_file(filename, program_filename):
                continue
        elif filename.startswith(_TORCH_DIR) or _same_file(filename, _THIS_FILE):
            continue
        source = linecache.getline(filename, lineno, frame.f_globals).strip()
        where = f"{os.path.basename(filename)}:{lineno}"
        return f"{where}: {source}" if source else where
    return None


def _module_repr(module: torch.nn.Module) -> str:
    cls = type(module)
    name = ("nn." if cls.__module__.startswith("torch.nn.") else "") + cls.__name__
    try:
        extra = module.extra_repr()
    except Exception:
        extra = ""
    return _short(name + (f"({extra})" if extra and "\n" not in extra else ""), 100)


def _innermost_module(frames: list[tuple[Any, int]]) -> tuple[str | None, bool]:
    """``(description, is_layer)`` of the innermost ``nn.Module`` whose method is on
    the traceback; the program's own top-level model is not reported as a layer."""
    modules: list[torch.nn.Module] = []
    for frame, _ in frames:
        owner = frame.f_locals.get("self")
        if isinstance(owner, torch.nn.Module) and not any(owner is m for m in modules):
            modules.append(owner)
    if not modules:
        return None, False
    root, inner = modules[0], modules[-1]
    if inner is root:
        if type(root).__module__.startswith("torch.nn."):
            return _module_repr(root), True
        return None, False
    path = next((n for n, m in root.named_modules() if m is inner), None)
    prefix = f"self.{path} " if path else ""
    return f"{prefix}({_module_repr(inner)})" if prefix else _module_repr(inner), True


def _join(parts: list[str]) -> str:
    """`a`, `b` and `c`; a trailing "…" (arguments left out) stays unquoted."""
    more = bool(parts) and parts[-1] == "…"
    quoted = [f"`{p}`" for p in (parts[:-1] if more else parts)]
    if more:
        return ", ".join([*quoted, "…"])
    if len(quoted) <= 1:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _summary_args(failure: _Failure, family: str | None) -> list[str]:
    mixed = len(set(failure.dtypes)) > 1
    parts = list(failure.args if family in ("dtype", "device") or mixed else failure.short_args)
    while parts and parts[-1] == "None":
        parts.pop()
    if len(parts) > 4:
        parts = parts[:3] + ["…"]
    if len(failure.kwargs) <= 2:
        parts += [f"{k}={v}" for k, v in failure.kwargs.items()]
    return parts


def explain_exception(
    exc: BaseException, recorder: OpRecorder | None, program_filename: str | None
) -> InvalidEvidence:
    """Build the evidence for ``exc`` raised while ``recorder`` was active.

    ``message`` is always the final exception's; the summary quotes the message the
    constraint was read from (the original torch error if the program wrapped it)."""
    frames = _frames(exc)
    exc_type = type(exc).__name__
    message = _message(exc)
    user_line = _user_line(frames, program_filename)
    module, in_layer = _innermost_module(frames)
    common = {"exc_type": exc_type, "message": message, "module": module, "user_line": user_line}
    failure = recorder.failure_for(exc) if recorder is not None else None

    if failure is not None:
        # The program may have wrapped the torch error (``raise X from err``): explain
        # with the torch message when the final one names no known constraint.
        for text in dict.fromkeys((message, _message(failure.exc))):
            constraint, family = match_constraint(
                failure.op, text, failure.shapes, failure.dtypes, in_layer, failure.int_range
            )
            if constraint is not None:
                break
        got = _join(_summary_args(failure, family))
        summary = f"`{failure.op}` got {got}" if got else f"`{failure.op}`"
        summary += f": {constraint} ({text})" if constraint else f": {message}"
        return InvalidEvidence(
            failure.op,
            failure.args,
            failure.kwargs,
            constraint=constraint,
            summary=summary,
            outer_ops=failure.outer,
            **common,
        )

    # Not raised inside a recorded torch call: plain Python code (the program's, or
    # library code such as an nn.Module's Python checks).
    op = f"{exc_type} in Python code"
    if frames:
        frame = frames[-1][0]
        filename = frame.f_code.co_filename
        in_program = program_filename is not None and _same_file(filename, program_filename)
        if not in_program and (filename.startswith(_TORCH_DIR) or program_filename is not None):
            qual = getattr(frame.f_code, "co_qualname", frame.f_code.co_name)
            op = _shorten(f"{frame.f_globals.get('__name__', '?')}.{qual}")
    constraint, _ = match_constraint(op, message, in_layer=in_layer)
    if constraint is None and isinstance(exc, AssertionError):
        constraint = "program assertion failed"
    if user_line is None:
        summary = f"`{exc_type}` raised"
    else:
        where, _, source = user_line.partition(": ")
        summary = f"`{exc_type}` raised at {where}" + (f" `{source}`" if source else "")
    if not op.endswith("in Python code"):
        summary += f" in `{op}`"
    detail = f"{constraint} ({message})" if constraint and message else constraint or message
    if detail:
        summary += f": {detail}"
    return InvalidEvidence(op, [], {}, constraint=constraint, summary=summary, **common)


def diagnose(fn: Callable[[], Any], program_filename: str | None) -> InvalidEvidence | None:
    """Run ``fn()`` under :class:`OpRecorder`; ``None`` if it returns normally,
    otherwise the evidence of which op broke which constraint."""
    recorder = OpRecorder()
    try:
        with recorder:
            fn()
    except Exception as exc:
        return explain_exception(exc, recorder, program_filename)
    return None
