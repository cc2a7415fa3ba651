"""Eager variants for the sensitivity probe: changed precision, flipped boundaries, nudged inputs.

Each variant is an eager run of the program that a correct compiler could legitimately have
matched, because it differs from plain eager only by rounding:

- :class:`PrecisionMode` runs every float op at least in a target precision: float32 emulates
  Inductor computing fp16/bf16 intermediates in float32 (it elides downcast/upcast pairs unless
  ``emulate_precision_casts``); float64 is a reference that also upcasts the program's own
  casts (what ``torch._dynamo.debug_utils.cast_to_fp64`` does to an FX graph).
- :class:`BoundaryMode` flips the decisions of discontinuous ops whose operands sit within a few
  units of rounding of a boundary (comparisons, casts to integers, floor/round/remainder,
  bucketize), and re-breaks ties and near-ties in ranking ops (sort, topk, argmax, kthvalue, ...)
  and pivoting decompositions (``lu_factor``).
- :func:`perturb_tensors` multiplies float inputs and parameters by ``1 + delta`` with
  ``|delta|`` up to a few machine epsilons of their own dtype.

Runs inside workers only.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
from torch.utils._python_dispatch import TorchDispatchMode

aten = torch.ops.aten


def float_bits(dtype: torch.dtype) -> int:
    return torch.finfo(dtype).bits if dtype.is_floating_point else 0


def eps_of(dtype: torch.dtype) -> float:
    """Machine epsilon of a float or complex dtype; 0 for integers and bool."""
    if dtype.is_complex:
        dtype = torch.float32 if dtype == torch.complex64 else torch.float64
    return float(torch.finfo(dtype).eps) if dtype.is_floating_point else 0.0


def schema_args(func: Any, args: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    """An aten call's arguments by schema name, defaults filled in (None where not given)."""
    out: dict[str, Any] = {a.name: None for a in func._schema.arguments}
    for i, a in enumerate(func._schema.arguments):
        if i < len(args):
            out[a.name] = args[i]
        elif a.name in kwargs:
            out[a.name] = kwargs[a.name]
        elif a.has_default_value():
            out[a.name] = a.default_value
    return out


def _map(obj: Any, fn: Callable[[Any], Any]) -> Any:
    if isinstance(obj, list | tuple):
        return type(obj)(_map(o, fn) for o in obj)
    return fn(obj)


class HopMode(TorchDispatchMode):
    """A probe's dispatch mode that also runs programs with higher-order ops (``cond``, ``map``,
    ``scan``, a ``nested_compile_region``...): each reaches :meth:`hop` (a plain mode makes
    eager raise "no rule registered for HigherOrderOperator"), which runs the op itself with
    its body functions wrapped to run under the mode again, so their ops pass through it too
    (the op's own eager kernel refuses to start under a mode). A body that cannot be wrapped
    runs as it is."""

    supports_higher_order_operators = True

    def hop(self, func: Any, args: Any, kwargs: Any) -> Any:
        kwargs = dict(kwargs or {})
        wrapped = [self._under(a) if _is_body(a) else a for a in args]
        try:
            return func(*wrapped, **kwargs)
        except Exception:
            return func(*args, **kwargs)

    def _under(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*a: Any, **k: Any) -> Any:
            with self:
                return fn(*a, **k)

        return run


def _is_body(a: Any) -> bool:
    return callable(a) and not isinstance(a, torch.Tensor | type)


def is_hop(func: Any) -> bool:
    return isinstance(func, torch._ops.HigherOrderOperator)


# -- precision -----------------------------------------------------------------------------------
class PrecisionMode(HopMode):
    """Run every floating op at least in ``target``: lower float dtype arguments (``dtype=``,
    ``.to(torch.float16)``) and lower float tensor arguments of non-mutating ops are raised.

    ``low_seen`` records whether fp16/bf16 (or another sub-float32 dtype) appeared at all, so
    the probe knows whether the float32 emulation can differ from eager.
    """

    def __init__(self, target: torch.dtype) -> None:
        super().__init__()
        self.target = target
        self.bits = float_bits(target)
        self.low_seen = False
        self.changed = 0

    def _raise(self, v: Any, tensors: bool) -> Any:
        if isinstance(v, torch.dtype) and v.is_floating_point:
            if float_bits(v) < 32:
                self.low_seen = True
            if float_bits(v) < self.bits:
                self.changed += 1
                return self.target
        elif tensors and isinstance(v, torch.Tensor) and v.is_floating_point():
            if float_bits(v.dtype) < 32:
                self.low_seen = True
            if float_bits(v.dtype) < self.bits:
                self.changed += 1
                return v.to(self.target)
        return v

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if is_hop(func):
            return self.hop(func, args, kwargs)
        kwargs = dict(kwargs or {})
        if func.overloadpacket is aten.view:  # view(dtype) is a bitcast: leave it alone
            return func(*args, **kwargs)
        tensors = not func._schema.is_mutable
        args = [_map(a, lambda v: self._raise(v, tensors)) for a in args]
        kwargs = {k: _map(v, lambda v: self._raise(v, tensors)) for k, v in kwargs.items()}
        return func(*args, **kwargs)


class RaisePrecision:
    """A ``run_model`` transform raising float parameters, buffers and inputs below ``target``;
    ``raised`` counts the tensors it changed."""

    def __init__(self, target: torch.dtype, grad: bool) -> None:
        self.target, self.grad, self.raised = target, grad, 0

    def _low(self, t: Any) -> bool:
        low = isinstance(t, torch.Tensor) and t.is_floating_point()
        return low and float_bits(t.dtype) < float_bits(self.target)

    def __call__(self, model: torch.nn.Module, inputs: list[Any]) -> tuple[Any, list[Any]]:
        for p in model.parameters():
            if self._low(p):
                self.raised += 1
                p.data = p.data.to(self.target)
        for mod in model.modules():
            for name, b in list(mod._buffers.items()):
                if self._low(b):
                    self.raised += 1
                    mod._buffers[name] = b.to(self.target)

        def one(t: Any) -> Any:
            if self._low(t):
                self.raised += 1
                return t.detach().to(self.target).requires_grad_(self.grad)
            return t

        return model, _map_nested(inputs, one)


def _map_nested(obj: Any, fn: Callable[[Any], Any]) -> Any:
    if isinstance(obj, list | tuple):
        mapped = [_map_nested(o, fn) for o in obj]
        return type(obj)(mapped) if not hasattr(obj, "_fields") else type(obj)(*mapped)
    if isinstance(obj, dict):
        return {k: _map_nested(v, fn) for k, v in obj.items()}
    return fn(obj)


def finite_like(alt: torch.Tensor, real: torch.Tensor) -> torch.Tensor:
    """``alt``, except where it is NaN or inf and ``real`` is finite: a rounding-sized change
    must not overflow (or turn into NaN) where eager does not, that is not rounding."""
    if not alt.is_floating_point():
        return alt
    return torch.where(torch.isfinite(alt) | ~torch.isfinite(real), alt, real)


def _zip_map(a: Any, b: Any, fn: Callable[[Any, Any], Any]) -> Any:
    if isinstance(a, torch.Tensor):
        return fn(a, b)
    if isinstance(a, list | tuple):
        return type(a)(_zip_map(x, y, fn) for x, y in zip(a, b, strict=True))
    return a


# -- perturbed inputs ----------------------------------------------------------------------------
def perturb_tensors(tensors: list[torch.Tensor], seed: int, sign: float, scale: float) -> None:
    """In place: ``t *= 1 + sign * scale * eps(t.dtype) * u`` with ``u ~ U(-1, 1)`` seeded per
    tensor. The same ``seed`` with ``sign`` -1 gives the antithetic perturbation."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for t in tensors:
            if not t.is_floating_point() or t.numel() == 0:
                continue
            u = torch.rand(t.shape, generator=gen, dtype=torch.float64) * 2 - 1
            factor = 1 + sign * scale * eps_of(t.dtype) * u
            t.copy_(finite_like((t.detach().double() * factor.to(t.device)).to(t.dtype), t))


def perturb_inputs(seed: int, sign: float, scale: float) -> Callable[[Any, list[Any]], Any]:
    """A ``run_model`` transform perturbing float inputs, parameters and buffers."""

    def transform(model: torch.nn.Module, inputs: list[Any]) -> tuple[Any, list[Any]]:
        found: list[torch.Tensor] = []
        _map_nested(inputs, lambda t: found.append(t) if isinstance(t, torch.Tensor) else None)
        found += [p for p in model.parameters()] + [b for b in model.buffers()]
        perturb_tensors(found, seed, sign, scale)
        return model, inputs

    return transform


# -- rounding ------------------------------------------------------------------------------------
#: Ops whose float results involve no rounding (data movement, selection, exact arithmetic, and
#: casts, which eager and compiled both round to nearest). Every other float result is a
#: rounding that another correct implementation may do differently.
EXACT = frozenset(
    """
    view _unsafe_view reshape as_strided expand permute transpose t squeeze unsqueeze slice
    select index index_select gather take take_along_dim narrow split split_with_sizes chunk
    unbind cat stack clone contiguous alias detach lift_fresh lift_fresh_copy _to_copy copy
    fill zeros zeros_like ones ones_like full full_like empty empty_like new_zeros new_ones
    new_full new_empty empty_strided scalar_tensor flip roll repeat tile constant_pad_nd
    reflection_pad1d reflection_pad2d reflection_pad3d replication_pad1d replication_pad2d
    replication_pad3d tril triu diag diagonal diag_embed where masked_fill masked_select
    masked_scatter index_put scatter embedding max min amax amin maximum minimum fmax fmin
    clamp clamp_min clamp_max hardtanh relu threshold abs neg sign sgn floor ceil round trunc
    frac fmod frexp ldexp sort topk kthvalue median nanmedian mode cummax cummin
    max_pool2d_with_indices max_pool3d_with_indices adaptive_max_pool2d adaptive_max_pool3d im2col pixel_shuffle
    pixel_unshuffle channel_shuffle upsample_nearest1d upsample_nearest2d upsample_nearest3d
    _unsafe_index nan_to_num copysign unfold movedim slice_scatter select_scatter
    diagonal_scatter as_strided_scatter index_copy index_fill rot90 expand_copy view_copy
    permute_copy squeeze_copy unsqueeze_copy transpose_copy t_copy select_copy slice_copy
    alias_copy detach_copy _reshape_alias bucketize searchsorted nonzero unique_dim
    _unique2 unique_consecutive real imag view_as_real view_as_complex conj _conj resolve_conj
    resolve_neg _neg_view zero randperm arange
    """.split()
)
LANES = 4  # the reordered reductions keep at least LANES running partial sums ...
SEQ_STEPS = 64  # ... and at most SEQ_STEPS sequential additions into each


def _seq_sum(x: torch.Tensor, dims: list[int] | None, reverse: bool) -> torch.Tensor:
    """Sum over ``dims`` (keepdim) in another order than ATen's: running partial sums in lanes
    over the elements in order (or reversed), at most ``SEQ_STEPS`` steps, then the lanes
    pairwise; fp16/bf16 accumulate in float32 as both eager and Inductor do."""
    acc = torch.float32 if float_bits(x.dtype) < 32 else x.dtype
    nd = x.dim()
    dims = sorted({d % nd for d in dims}) if dims and nd else list(range(nd))
    keep = [s if d not in dims else 1 for d, s in enumerate(x.shape)]
    y = x.to(acc).movedim(dims, list(range(nd - len(dims), nd))) if nd else x.to(acc).reshape(1)
    flat = y.reshape(*y.shape[: y.dim() - len(dims)], -1) if nd else y
    if reverse:
        flat = flat.flip(-1)
    n = flat.shape[-1]
    lanes = max(LANES, math.ceil(n / SEQ_STEPS))
    flat = torch.nn.functional.pad(flat, (0, (-n) % lanes))
    blocks = flat.reshape(*flat.shape[:-1], -1, lanes)
    run = blocks[..., 0, :]
    for i in range(1, blocks.shape[-2]):
        run = run + blocks[..., i, :]
    while run.shape[-1] > 1:
        if run.shape[-1] % 2:
            run = torch.nn.functional.pad(run, (0, 1))
        half = run.shape[-1] // 2
        run = run[..., :half] + run[..., half:]
    return run[..., 0].reshape(keep)


def _dims(value: Any, nd: int) -> list[int] | None:
    if value is None:
        return None
    dims = [value] if isinstance(value, int) else list(value)
    return [d % max(nd, 1) for d in dims] or None


def _numel(x: torch.Tensor, dims: list[int] | None) -> int:
    return math.prod(x.shape[d] for d in dims) if dims else x.numel()


def _squeeze(t: torch.Tensor, dims: list[int] | None, keepdim: bool) -> torch.Tensor:
    if keepdim:
        return t
    return t.reshape([s for d, s in enumerate(t.shape) if dims is not None and d not in dims])


class RoundingMode(HopMode):
    """Eager with every rounding done differently: reductions (sum, mean, var, softmax,
    logsumexp, norms, mm/bmm, layer norm) add in another order, and every other rounding op's
    float result moves by up to ``scale`` epsilons of its dtype (seeded; ``sign`` -1 mirrors)."""

    def __init__(self, seed: int, sign: float, scale: float) -> None:
        super().__init__()
        self.gen = torch.Generator().manual_seed(seed)
        self.sign, self.scale = sign, scale
        self.reverse = sign < 0

    def __torch_dispatch__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if is_hop(func):
            return self.hop(func, args, kwargs)
        kwargs = dict(kwargs or {})
        name = func._schema.name.split("::")[-1]
        if name in EXACT or func._schema.is_mutable:
            return func(*args, **kwargs)
        real = func(*args, **kwargs)
        try:
            out = self._reordered(func, name, args, kwargs)
        except Exception:  # emulation is best effort: fall back to eager's own result
            out = None
        if out is None or not _same_meta(out, real):
            out = real
        else:  # another order may round differently, never overflow where eager does not
            out = _zip_map(out, real, finite_like)
        return _map(out, self._jiggle)

    def _jiggle(self, t: Any) -> Any:
        if not isinstance(t, torch.Tensor) or not t.is_floating_point() or t.numel() == 0:
            return t
        u = torch.rand(t.shape, generator=self.gen, dtype=torch.float64).to(t.device) * 2 - 1
        factor = 1 + self.sign * self.scale * eps_of(t.dtype) * u
        return finite_like((t.double() * factor).to(t.dtype), t)

    def _reordered(self, func: Any, name: str, args: Any, kwargs: dict[str, Any]) -> Any:
        a = schema_args(func, args, kwargs)
        x = a.get("self", a.get("input"))
        rev = self.reverse
        if name in ("sum", "mean") and isinstance(x, torch.Tensor):
            if a.get("dtype") is not None:
                x = x.to(a["dtype"])
            if not x.is_floating_point():
                return None
            dims = _dims(a.get("dim"), x.dim())
            s = _seq_sum(x, dims, rev)
            if name == "mean":
                s = s / _numel(x, dims)
            keepdim = bool(a.get("keepdim", False)) if "keepdim" in a else False
            return _squeeze(s, dims if dims is not None else list(range(x.dim())), keepdim)
        if name in ("_softmax", "_log_softmax"):
            d = a["dim"] % max(x.dim(), 1)
            y = x.float() if float_bits(x.dtype) < 32 else x
            m = y.amax(d, keepdim=True)
            m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
            e = torch.exp(y - m)
            s = _seq_sum(e, [d], rev)
            out = e / s if name == "_softmax" else (y - m) - torch.log(s)
            return out.to(torch.float32 if a.get("half_to_float") else x.dtype)
        if name == "logsumexp" and x.is_floating_point():
            dims = _dims(a["dim"], x.dim())
            m = x.amax(dims, keepdim=True) if dims else x.amax().reshape([1] * x.dim())
            m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
            out = (torch.log(_seq_sum(torch.exp(x - m), dims, rev)) + m).to(x.dtype)
            return _squeeze(out, dims or list(range(x.dim())), bool(a.get("keepdim")))
        if name in ("var", "std", "var_mean", "std_mean") and x.is_floating_point():
            dims = _dims(a.get("dim"), x.dim())
            n = _numel(x, dims)
            corr = a.get("correction")
            corr = 1 if corr is None else corr
            mean = _seq_sum(x, dims, rev) / n
            var = _seq_sum((x - mean) ** 2, dims, rev) / max(n - corr, 0)
            out = (var if name.startswith("var") else var.sqrt()).to(x.dtype)
            shape = dims or list(range(x.dim()))
            keep = bool(a.get("keepdim"))
            if name.endswith("_mean"):  # (var or std, mean), each reordered
                return (_squeeze(out, shape, keep), _squeeze(mean.to(x.dtype), shape, keep))
            return _squeeze(out, shape, keep)
        if name == "linalg_vector_norm" and x.is_floating_point() and a.get("ord", 2) == 2:
            dims = _dims(a.get("dim"), x.dim())
            out = _seq_sum(x.abs() ** 2, dims, rev).sqrt().to(a.get("dtype") or x.dtype)
            return _squeeze(out, dims or list(range(x.dim())), bool(a.get("keepdim")))
        if name in ("mm", "addmm", "bmm"):
            return self._matmul(name, a, rev)
        if name == "native_layer_norm":
            return self._layer_norm(a, rev)
        return None

    def _matmul(self, name: str, a: dict[str, Any], rev: bool) -> Any:
        x = a["self"] if name != "addmm" else a["mat1"]
        w = a["mat2"]
        if not x.is_floating_point() or x.numel() * w.shape[-1] > 1 << 21:
            return None
        if name == "bmm":
            out = _seq_sum(x.unsqueeze(-1) * w.unsqueeze(-3), [-2], rev).squeeze(-2)
        else:
            out = _seq_sum(x.unsqueeze(-1) * w.unsqueeze(0), [1], rev).squeeze(1)
        if name == "addmm":
            out = a.get("beta", 1) * a["self"] + a.get("alpha", 1) * out
        return out.to(x.dtype)

    def _layer_norm(self, a: dict[str, Any], rev: bool) -> Any:
        x = a["input"]
        if not x.is_floating_point():
            return None
        k = len(a["normalized_shape"])
        dims = list(range(x.dim() - k, x.dim()))
        y = x.float() if float_bits(x.dtype) < 32 else x
        n = _numel(x, dims)
        mean = _seq_sum(y, dims, rev) / n
        var = _seq_sum((y - mean) ** 2, dims, rev) / n
        rstd = torch.rsqrt(var + a["eps"])
        out = (y - mean) * rstd
        if a.get("weight") is not None:
            out = out * a["weight"]
        if a.get("bias") is not None:
            out = out + a["bias"]
        return (out.to(x.dtype), mean, rstd)


def _same_meta(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and a.dtype == b.dtype
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same_meta(x, y) for x, y in zip(a, b, strict=True))
    return False
