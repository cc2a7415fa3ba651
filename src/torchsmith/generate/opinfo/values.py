"""Python values and tensors of OpInfo samples as source: the literal half of the ``opinfo``
family's renderer (:mod:`torchsmith.generate.opinfo.render`). Pure: nothing here runs an op.

Integer/bool tensors of at most :data:`INT_LITERAL_MAX` elements and float tensors of at most
:data:`FLOAT_LITERAL_MAX` are written as exact literals (up to :data:`EXACT_LITERAL_MAX` for
value-sensitive ops); larger ones with ``torch.testing.make_tensor`` over the sample's own
finite range, sorted rows kept sorted. Expanded (stride 0), permuted and other non-contiguous
layouts are rebuilt with ``.expand``, ``.permute``/``.transpose`` and ``noncontiguous=True``.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from typing import Any

import torch

#: Integer/bool tensors up to this many elements are written as exact literals.
INT_LITERAL_MAX = 64
#: Float tensors up to this many elements are written as exact literals.
FLOAT_LITERAL_MAX = 16
#: Both limits for value-sensitive ops (factorizations, sorted or unique inputs).
EXACT_LITERAL_MAX = 256
#: Samples with more tensor elements than this are not rendered (compile and check time).
MAX_SAMPLE_NUMEL = 1 << 14

FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
INT_DTYPES = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)
REAL_DTYPES = (*FLOAT_DTYPES, *INT_DTYPES, torch.bool)


class Unrenderable(ValueError):
    """The sample holds something that cannot be written as source (complex, a module, ...)."""


# -- literals -----------------------------------------------------------------------------------
def float_literal(v: float, dtype: torch.dtype = torch.float64) -> str:
    """``v`` as Python source that ``torch.tensor(..., dtype=dtype)`` turns back into ``v``
    exactly (the shortest such decimal for dtypes narrower than float64)."""
    if math.isnan(v):
        return 'float("nan")'
    if math.isinf(v):
        return 'float("inf")' if v > 0 else '-float("inf")'
    text = repr(float(v))
    if dtype != torch.float64:
        want = struct.pack("<f", v)
        for digits in range(1, 10):
            short = f"{v:.{digits}g}"
            if struct.pack("<f", float(short)) == want:
                text = short
                break
    if not any(c in text for c in ".en"):
        text += ".0"
    return text


def literal(v: Any) -> str:
    """A Python value of a sample (scalar, dtype, string, tuple, slice, ...) as source."""
    if v is None or isinstance(v, bool):
        return repr(v)
    if isinstance(v, int):
        return repr(int(v))
    if isinstance(v, float):
        return float_literal(v)
    if isinstance(v, str):
        return repr(v)
    if v is Ellipsis:
        return "..."
    if isinstance(v, torch.dtype | torch.memory_format | torch.layout):
        return str(v)
    if isinstance(v, torch.device):
        return f'torch.device("{v}")'
    if isinstance(v, torch.Size):
        return f"torch.Size([{', '.join(literal(x) for x in v)}])"
    if isinstance(v, slice):
        return f"slice({literal(v.start)}, {literal(v.stop)}, {literal(v.step)})"
    if isinstance(v, tuple):
        items = [literal(x) for x in v]
        return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
    if isinstance(v, list):
        return f"[{', '.join(literal(x) for x in v)}]"
    if isinstance(v, dict) and all(isinstance(k, str) for k in v):
        return "{" + ", ".join(f"{k!r}: {literal(x)}" for k, x in v.items()) + "}"
    raise Unrenderable(f"cannot write {type(v).__name__} {v!r:.60} as a literal")


def _nested(values: Any, item: Any) -> str:
    if isinstance(values, list):
        return "[" + ", ".join(_nested(x, item) for x in values) + "]"
    return item(values)


def _shape(shape: Sequence[int]) -> str:
    return literal(tuple(int(s) for s in shape))


# -- tensors ------------------------------------------------------------------------------------
def check_tensor(t: torch.Tensor) -> None:
    """Raise :class:`Unrenderable` unless ``t`` is a dense tensor of a real dtype."""
    if t.layout != torch.strided or t.is_quantized or t.dtype not in REAL_DTYPES:
        raise Unrenderable(f"tensor of {t.dtype}/{t.layout}")


def _exact_limit(t: torch.Tensor, exact: bool) -> int:
    if exact:
        return EXACT_LITERAL_MAX
    return FLOAT_LITERAL_MAX if t.dtype.is_floating_point else INT_LITERAL_MAX


def _values_expr(t: torch.Tensor, exact: bool) -> tuple[str, bool]:
    """A contiguous tensor with ``t``'s values (exact, or drawn over its range); the flag says
    whether ``make_tensor`` drew it (it can then take ``noncontiguous=True`` itself)."""
    dt = str(t.dtype)
    if t.numel() == 0:
        return f"torch.zeros({_shape(t.shape)}, dtype={dt})", False
    if t.numel() <= _exact_limit(t, exact):
        if t.dtype == torch.bool:
            vals = _nested(t.tolist(), repr)
        elif t.dtype.is_floating_point:
            vals = _nested(t.double().tolist(), lambda v: float_literal(v, t.dtype))
        else:
            vals = _nested(t.tolist(), lambda v: repr(int(v)))
        return f"torch.tensor({vals}, dtype={dt})", False
    make = f'torch.testing.make_tensor({_shape(t.shape)}, dtype={dt}, device="cpu"'
    if t.dtype == torch.bool:
        return make + ")", True
    if t.dtype.is_floating_point:
        finite = t[torch.isfinite(t)].double()
        if finite.numel() == 0:
            return (
                f"torch.full({_shape(t.shape)}, {float_literal(t.flatten()[0].item())}, dtype={dt})",
                False,
            )
        lo, hi = finite.min().item(), finite.max().item()
        lo_r, hi_r = (
            (math.floor(lo * 8) / 8, math.ceil(hi * 8) / 8) if max(-lo, hi) < 1e6 else (lo, hi)
        )
        if lo_r >= hi_r:
            return f"torch.full({_shape(t.shape)}, {float_literal(lo)}, dtype={dt})", False
        expr = f"{make}, low={float_literal(lo_r)}, high={float_literal(hi_r)})"
    else:
        lo, hi = int(t.min().item()), int(t.max().item())
        if hi < torch.iinfo(t.dtype).max:
            hi += 1
        if lo >= hi:
            return f"torch.full({_shape(t.shape)}, {lo}, dtype={dt})", False
        expr = f"{make}, low={lo}, high={hi})"
    if t.dim() >= 1 and t.shape[-1] > 1 and bool((t[..., 1:] >= t[..., :-1]).all()):
        return expr + ".sort(dim=-1).values", False  # sorted rows (searchsorted, bucketize)
    return expr, True


def _permutation(t: torch.Tensor) -> list[int] | None:
    """The dim order that makes ``t`` contiguous, when its strides are a permuted dense layout."""
    order = sorted(range(t.dim()), key=lambda d: (-t.stride(d), -t.shape[d]))
    return order if t.permute(order).is_contiguous() else None


def tensor_expr(t: torch.Tensor, exact: bool = False) -> str:
    """Source that builds a tensor like ``t``: its dtype, shape and values (exact when small)
    and its layout (expanded dims, permutation, non-contiguity; not its storage offset)."""
    check_tensor(t)
    t = t.detach()
    if t.numel() > 0 and not t.is_contiguous():
        expanded = [d for d in range(t.dim()) if t.stride(d) == 0 and t.shape[d] > 1]
        if expanded:
            base = t
            for d in expanded:
                base = base.narrow(d, 0, 1)
            return f"{tensor_expr(base, exact)}.expand({_shape(t.shape)})"
        order = _permutation(t)
        if order is not None and order != list(range(t.dim())):
            inverse = sorted(range(t.dim()), key=order.__getitem__)
            inner = tensor_expr(t.permute(order).contiguous(), exact)
            swapped = [d for d in range(t.dim()) if inverse[d] != d]
            if len(swapped) == 2:
                return f"{inner}.transpose({swapped[0]}, {swapped[1]})"
            return f"{inner}.permute({', '.join(map(str, inverse))})"
        values, drawn = _values_expr(t.contiguous(), exact)
        if drawn:
            return values[:-1] + ", noncontiguous=True)"
        return f"torch.stack([{values}, {values}], dim=-1)[..., 0]"
    return _values_expr(t, exact)[0]


__all__ = [
    "EXACT_LITERAL_MAX",
    "FLOAT_DTYPES",
    "FLOAT_LITERAL_MAX",
    "INT_DTYPES",
    "INT_LITERAL_MAX",
    "MAX_SAMPLE_NUMEL",
    "REAL_DTYPES",
    "Unrenderable",
    "check_tensor",
    "float_literal",
    "literal",
    "tensor_expr",
]
