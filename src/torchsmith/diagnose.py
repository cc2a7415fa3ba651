"""Explain why a test program is invalid: which torch op broke which constraint.

A program whose eager run raises is not a compiler bug.  :func:`diagnose` runs it
under :class:`OpRecorder`, a ``TorchFunctionMode`` that notes the innermost
torch-level call an exception escaped from (``torch.mm``, ``Tensor.view``,
``F.conv2d`` ...) and describes its arguments.  The exception message is then
matched against a small ordered table of known constraints (:data:`RULES`) to
name the broken constraint in plain words, e.g.::

    `torch.mm` got `[2, 10]` and `[2, 10]`: not row-column aligned (mat1 and mat2 ...)
"""

from __future__ import annotations

import dataclasses
import linecache
import os
import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

__all__ = [
    "RULES",
    "InvalidEvidence",
    "OpRecorder",
    "Rule",
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
    "__add__": "+", "__radd__": "+", "__iadd__": "+=", "__sub__": "-", "__rsub__": "-",
    "__isub__": "-=", "__mul__": "*", "__rmul__": "*", "__imul__": "*=", "__matmul__": "@",
    "__rmatmul__": "@", "__truediv__": "/", "__rtruediv__": "/", "__itruediv__": "/=",
    "__floordiv__": "//", "__rfloordiv__": "//", "__mod__": "%", "__rmod__": "%",
    "__pow__": "**", "__rpow__": "**", "__and__": "&", "__rand__": "&", "__or__": "|",
    "__ror__": "|", "__xor__": "^", "__rxor__": "^", "__lshift__": "<<", "__rshift__": ">>",
    "__eq__": "==", "__ne__": "!=", "__lt__": "<", "__le__": "<=", "__gt__": ">",
    "__ge__": ">=", "__neg__": "unary -", "__invert__": "~", "__getitem__": "[]",
    "__setitem__": "[]=",
}  # fmt: skip
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


@dataclass
class _Ctx:
    """What a rule may look at besides the regex match."""

    op: str
    shapes: list[tuple[int, ...]]
    dtypes: list[str]
    in_layer: bool
    int_range: tuple[int, int] | None


@dataclass(frozen=True)
class Rule:
    """``pattern`` is searched in the exception message; ``ops`` (if set) restricts the
    rule to those op names; ``explain`` turns the match into the constraint text."""

    pattern: re.Pattern[str]
    explain: Callable[[re.Match[str], _Ctx], str]
    ops: tuple[str, ...] | None = None
    family: str = "other"


def _rule(pattern: str, explain, ops=None, family: str = "other") -> Rule:
    return Rule(re.compile(pattern, re.S), explain, tuple(ops) if ops else None, family)


def _dtype_mismatch(m: re.Match[str], c: _Ctx) -> str:
    distinct = list(dict.fromkeys(c.dtypes))
    if len(distinct) >= 2:
        return "dtype mismatch: " + " vs ".join(distinct)
    return "dtype mismatch between inputs"


def _emb_index(m: re.Match[str], c: _Ctx) -> str:
    weight = next((s for s in c.shapes if len(s) == 2), None)
    if weight is not None and c.int_range is not None:
        return f"index out of range: table has {weight[0]} rows, indices span {c.int_range[0]}..{c.int_range[1]}"
    return "index out of range"


_LINEAR = ("F.linear", "F.bilinear")
_EMBEDDING = ("F.embedding", "torch.embedding", "F.embedding_bag", "torch.embedding_bag")

RULES: list[Rule] = [
    # --- matmul family
    _rule(r"shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)",
          lambda m, c: f"not row-column aligned: input has {m[2]} features, "
          f"{'layer' if c.in_layer else 'weight'} expects {m[3]}", _LINEAR, "matmul"),
    _rule(r"shapes cannot be multiplied", lambda m, c: "not row-column aligned", family="matmul"),
    _rule(r"Expected size for first two dimensions of batch2 tensor to be: \[(\d+), (\d+)\] but got: \[(\d+), (\d+)\]",
          lambda m, c: f"batch sizes differ: {m[1]} vs {m[3]}" if m[1] != m[3]
          else f"not row-column aligned: {m[2]} columns vs {m[4]} rows", family="matmul"),
    _rule(r"inconsistent tensor size, expected tensor \[(\d+)\] and src \[(\d+)\]",
          lambda m, c: f"vectors differ in length: {m[1]} vs {m[2]}", family="matmul"),
    _rule(r"size mismatch, got input \((.*?)\), mat \((.*?)\), vec \((.*?)\)",
          lambda m, c: f"not row-column aligned: matrix {m[2]} times vector {m[3]}", family="matmul"),
    _rule(r"subscript (\w) has size (\d+) for operand (\d+) which does not broadcast with previously seen size (\d+)",
          lambda m, c: f"einsum index {m[1]} is {m[4]} in one operand and {m[2]} in operand {m[3]}", family="matmul"),
    # --- broadcasting / expand
    _rule(r"The size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at non-singleton dimension (\d+)",
          lambda m, c: f"shapes not broadcastable: dim {m[3]} is {m[1]} vs {m[2]}", family="broadcast"),
    _rule(r"The expanded size of the tensor \((-?\d+)\) must match the existing size \((\d+)\) at non-singleton dimension (\d+)",
          lambda m, c: f"cannot expand: dim {m[3]} has size {m[2]}, target {m[1]}", family="broadcast"),
    _rule(r"The shape of the mask \[(.*?)\] at index (\d+) does not match the shape of the indexed tensor \[(.*?)\]",
          lambda m, c: f"boolean mask [{m[1]}] does not match indexed shape [{m[3]}] at dim {m[2]}", family="index"),
    # --- view / reshape
    _rule(r"shape '\[(.*?)\]' is invalid for input of size (\d+)",
          lambda m, c: f"element count {m[2]} does not fit the requested shape [{m[1]}]", family="view"),
    _rule(r"view size is not compatible with input tensor's size and stride",
          lambda m, c: "needs contiguous memory: use reshape", family="view"),
    _rule(r"Provided sizes \[(.*?)\] don't multiply up to the size of dim (\d+) \((\d+)\)",
          lambda m, c: f"sizes [{m[1]}] do not multiply to {m[3]} (dim {m[2]})", family="view"),
    _rule(r"split_with_sizes expects split_sizes to sum exactly to (\d+)",
          lambda m, c: f"split sizes must sum to {m[1]}", family="view"),
    # --- conv / pooling
    _rule(r"Expected ([\w ()]+?) input to (\w+), but got input of size: \[(.*?)\]",
          lambda m, c: f"wrong number of dimensions: {m[2]} expects {m[1]} input, got "
          f"{len(m[3].split(',')) if m[3] else 0}-D [{m[3]}]", family="rank"),
    _rule(r"Expected (\d+)-dimensional input",
          lambda m, c: f"wrong number of dimensions: expects {m[1]}-D input", family="rank"),
    _rule(r"expected input\[(.*?)\] to have (\d+) channels, but got (\d+) channels",
          lambda m, c: f"channel mismatch: {'layer' if c.in_layer else 'weight'} expects {m[2]}, input has {m[3]}",
          family="channels"),
    _rule(r"input size per channel: \((.*?)\)\. Kernel size: \((.*?)\)\. Kernel size can't be greater",
          lambda m, c: f"kernel ({m[2]}) larger than padded input ({m[1]})", family="conv"),
    _rule(r"Kernel size can't be greater than actual input size",
          lambda m, c: "kernel larger than input", family="conv"),
    _rule(r"Calculated output size: \((.*?)\)\. Output size is too small",
          lambda m, c: f"input too small: output would be ({m[1]})", family="conv"),
    _rule(r"(?:Only|Expected|non-empty) ([\dD, and]+?) (?:\(batch mode\) )?(?:input )?(?:Tensors? )?"
          r"(?:supported|tensor expected|tensor, but got)",
          lambda m, c: f"wrong number of dimensions: expects {m[1]} input", family="rank"),
    _rule(r"expected (\d+D) input \(got (\d+D) input\)",
          lambda m, c: f"wrong number of dimensions: expects {m[1]}, got {m[2]}", family="rank"),
    # --- dims
    _rule(r"Dimension out of range \(expected to be in range of \[(-?\d+), (-?\d+)\], but got (-?\d+)\)",
          lambda m, c: f"dim {m[3]} out of range for a {int(m[2]) + 1}-D tensor (valid {m[1]}..{m[2]})",
          family="dim"),
    _rule(r"too many indices for tensor of dimension (\d+)",
          lambda m, c: f"too many indices for a {m[1]}-D tensor", family="index"),
    _rule(r"number of dimensions in the tensor input does not match the length of the desired ordering",
          lambda m, c: "permute needs exactly one index per dimension", family="dim"),
    # --- dtype
    _rule(r"expected scalar type (\w+) but found (\w+)",
          lambda m, c: f"dtype mismatch: expected {m[1]}, found {m[2]}", family="dtype"),
    _rule(r"expected m1 and m2 to have the same dtype, but got: (.+?) != (.+?)$",
          lambda m, c: f"dtype mismatch: {m[1]} vs {m[2]}", family="dtype"),
    _rule(r"mat1 and mat2 must have the same dtype, but got (\w+) and (\w+)",
          lambda m, c: f"dtype mismatch: {m[1]} vs {m[2]}", family="dtype"),
    _rule(r"Input type \((\w+)\) and (bias|weight) type \((\w+)\) should be the same",
          lambda m, c: f"dtype mismatch: input {m[1]} vs {m[2]} {m[3]}", family="dtype"),
    _rule(r"RNN input dtype \(torch\.(\w+)\) does not match weight dtype \(torch\.(\w+)\)",
          lambda m, c: f"dtype mismatch: input {m[1]} vs weight {m[2]}", family="dtype"),
    _rule(r"not implemented for '(\w+)'",
          lambda m, c: f"dtype {m[1]} not supported by this op", family="dtype"),
    _rule(r"Subtraction, the `-` operator, with two bool tensors is not supported",
          lambda m, c: "bool tensors do not support `-` (use `^` or logical_xor)", family="dtype"),
    _rule(r"result type (\w+) can't be cast to the desired output type (\w+)",
          lambda m, c: f"result dtype {m[1]} can't be written into a {m[2]} output", family="dtype"),
    _rule(r"Input dtype must be either a floating point or complex dtype\. Got: (\w+)",
          lambda m, c: f"needs a floating-point input, got {m[1]}", family="dtype"),
    _rule(r"Low precision dtypes not supported\. Got (\w+)",
          lambda m, c: f"dtype {m[1]} not supported by this op", family="dtype"),
    _rule(r"Expected tensor for argument #\d+ '(\w+)' to have one of the following scalar types: ([\w, ]+); but got ([\w.]+)",
          lambda m, c: f"{m[1]} must be {m[2]}, got {m[3]}", family="dtype"),
    _rule(r"(?i)Expected dtype int32/int64 for index|expected target dtype to be (Long|Byte)",
          lambda m, c: "index/target must be an integer tensor", family="dtype"),
    _rule(r"(?i)same (?:scalar )?type|same dtype|dtypes? match|mixed dtype|same datatype|self\.dtype to be equal",
          _dtype_mismatch, family="dtype"),
    # --- indexing
    _rule(r"index (-?\d+) is out of bounds for dimension (\d+) with size (\d+)",
          lambda m, c: f"index {m[1]} out of bounds: dim {m[2]} has size {m[3]}", family="index"),
    _rule(r"index out of range in self", _emb_index, _EMBEDDING, "index"),
    _rule(r"index out of range in self", lambda m, c: "index out of range", family="index"),
    _rule(r"Target (-?\d+) is out of bounds",
          lambda m, c: f"class index {m[1]} out of bounds"
          + (f" for {c.shapes[0][-1]} classes" if c.shapes and c.shapes[0] else ""), family="index"),
    _rule(r"start \((-?\d+)\) \+ length \((\d+)\) exceeds dimension size \((\d+)\)",
          lambda m, c: f"slice {m[1]}..{int(m[1]) + int(m[2])} exceeds size {m[3]}", family="index"),
    _rule(r"selected index k out of range", lambda m, c: "k larger than the dimension", family="index"),
    # --- cat / stack
    _rule(r"Sizes of tensors must match except in dimension (\d+)\. Expected size (\d+) but got size (\d+) for tensor number (\d+)",
          lambda m, c: f"sizes must match except in cat dim {m[1]}: tensor {m[4]} has {m[3]}, expected {m[2]}",
          family="cat"),
    _rule(r"Tensors must have same number of dimensions: got (\d+) and (\d+)",
          lambda m, c: f"tensors have different numbers of dimensions: {m[1]} vs {m[2]}", family="cat"),
    _rule(r"stack expects each tensor to be equal size, but got \[(.*?)\] at entry (\d+) and \[(.*?)\] at entry (\d+)",
          lambda m, c: f"stack needs equal shapes: [{m[1]}] vs [{m[3]}]", family="cat"),
    # --- normalization
    _rule(r"Expected more than 1 value per channel when training",
          lambda m, c: "batch norm in training mode needs more than 1 value per channel", family="norm"),
    _rule(r"running_mean should contain (\d+) elements not (\d+)",
          lambda m, c: f"channel mismatch: norm layer has {m[2]} features, input has {m[1]} channels",
          family="channels"),
    _rule(r"Given normalized_shape=\[(.*?)\], expected input with shape \[\*, (.*?)\], but got input of size\s*\[(.*?)\]",
          lambda m, c: f"trailing dims [{m[3]}] do not end with normalized_shape [{m[1]}]", family="norm"),
    _rule(r"Expected number of channels in input to be divisible by num_groups",
          lambda m, c: "channels not divisible by num_groups", family="norm"),
    _rule(r"input\.size\(-1\) must be equal to input_size\. Expected (\d+), got (\d+)",
          lambda m, c: f"feature mismatch: layer expects input_size {m[1]}, input has {m[2]}",
          family="channels"),
    # --- padding
    _rule(r"Padding size should be less than the corresponding input dimension, but got: padding \((.*?)\) at dimension (\d+) of input \[(.*?)\]",
          lambda m, c: f"padding ({m[1]}) too large for dim {m[2]} of input [{m[3]}]", family="pad"),
    _rule(r"Padding size should be less than the corresponding input dimension",
          lambda m, c: "padding too large for the input", family="pad"),
    # --- device
    _rule(r"Expected all tensors to be on the same device, but found at least two devices, ([\w:]+) and ([\w:]+)",
          lambda m, c: f"tensors on different devices: {m[1]} vs {m[2]}", family="device"),
    _rule(r"Expected all tensors to be on the same device|Tensor on device (\w+) is not on the expected device (\w+)",
          lambda m, c: "tensors on different devices" + (f": {m[1]} vs {m[2]}" if m[1] else ""),
          family="device"),
    # --- losses, autograd, misc
    _rule(r"Expected input batch_size \((\d+)\) to match target batch_size \((\d+)\)",
          lambda m, c: f"batch size mismatch: input {m[1]} vs target {m[2]}", family="broadcast"),
    _rule(r"a leaf Variable that requires grad is being used in an in-place operation",
          lambda m, c: "in-place op on a leaf tensor that requires grad", family="autograd"),
    _rule(r"Trying to backward through the graph a second time",
          lambda m, c: "backward through a freed graph (needs retain_graph=True)", family="autograd"),
    _rule(r"with (\d+) elements cannot be converted to Scalar|Boolean value of Tensor with more than one value",
          lambda m, c: "needs a single-element tensor", family="other"),
    _rule(r"(\w+)\(\): argument '(\w+)' \(position (\d+)\) must be ([\w ,]+?), not (\w+)",
          lambda m, c: f"argument {m[2]} of {m[1]}() must be {m[4]}, got {m[5]}", family="type"),
    _rule(r"received an invalid combination of arguments",
          lambda m, c: "invalid combination of argument types", family="type"),
]  # fmt: skip


def match_constraint(
    op: str,
    message: str,
    shapes: list[tuple[int, ...]] | None = None,
    dtypes: list[str] | None = None,
    in_layer: bool = False,
    int_range: tuple[int, int] | None = None,
) -> tuple[str | None, str | None]:
    """``(constraint, family)`` from the first rule matching ``message`` (and ``op``)."""
    ctx = _Ctx(op, list(shapes or []), list(dtypes or []), in_layer, int_range)
    for rule in RULES:
        if rule.ops is not None and op not in rule.ops:
            continue
        m = rule.pattern.search(message)
        if m is None:
            continue
        try:
            return rule.explain(m, ctx), rule.family
        except Exception:  # a rule bug must not hide the diagnosis
            return None, rule.family
    return None, None


# --------------------------------------------------------------------------- evidence


@dataclass
class InvalidEvidence:
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

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> InvalidEvidence:
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


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
            op=failure.op,
            args=failure.args,
            kwargs=failure.kwargs,
            exc_type=exc_type,
            message=message,
            constraint=constraint,
            module=module,
            user_line=user_line,
            summary=summary,
            outer_ops=failure.outer,
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
    return InvalidEvidence(
        op=op,
        args=[],
        kwargs={},
        exc_type=exc_type,
        message=message,
        constraint=constraint,
        module=module,
        user_line=user_line,
        summary=summary,
    )


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
