"""Training a script does outside its compiled calls: ``backward()``, ``torch.autograd.grad`` and
optimizer steps on compiled outputs, judged as the calls are (eager, compiled, float64).

What a run keeps (:class:`Training`): the gradients the script left on the tensors its compiled
calls touched (their leaf tensor arguments, the compiled module's parameters, a compiled
function's global modules' parameters and global leaf tensors), those tensors' values when the
script changed them after the call (an optimizer step), and what the script's own
``torch.autograd.grad`` calls returned. Keys are ``call{i}.{name}`` (the first call that touched
the tensor), ``call{i}.updated:{name}`` and ``autograd.grad[{j}][{k}]``.

The float64 reference (:func:`route`): in the float64 run the script goes on with the eager
result of each call, but its backward goes through the call recomputed in float64 from the
same tensors (inputs and parameters cast with ``.to(float64)``, which autograd differentiates),
so the gradients, the updated parameters and ``autograd.grad``'s results of that run are the
float64 computation of the compiled part, rounded once to the tensor's dtype; they are handed to
the judge as float64 (``same(eager, compiled, fp64)``'s reference), and only when a call of the
run was routed (otherwise they are eager's own and are no reference), and only for float32 and
float64 tensors (bfloat16 and float16 ones are judged against eager alone, as before).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import torch
from torch.utils import _pytree as pytree

#: ``torch.autograd.grad`` calls recorded per run.
MAX_AUTOGRAD_CALLS = 32
#: Dtypes whose float64 recomputation is a reference. A bfloat16 or float16 script rounds its
#: Python scalars and intermediates to the dtype (a margin of 1.7 is 1.703125 in bfloat16), so
#: float64 computes another function at a rounding boundary: such gradients are judged against
#: eager alone (PyTorch issue 185517: compiled kept the margin in float32 and zeroed a gradient
#: that float64 also zeroes).
_REFERENCE_DTYPES = (torch.float32, torch.float64)


class _Route(torch.autograd.Function):
    """Forward: the eager value; backward: into the float64 recomputation."""

    @staticmethod
    def forward(ctx: Any, shown: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
        ctx.ref_dtype = ref.dtype
        return shown.detach().clone()

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[None, torch.Tensor]:
        return None, grad.to(ctx.ref_dtype)


def route(shown: Any, ref: Any) -> tuple[Any, bool]:
    """``shown`` (the eager result the script goes on with) with the backward of each float
    tensor that ``ref`` computes with grad routed through ``ref``; (result, whether any was)."""
    a, spec = pytree.tree_flatten(shown)
    b, spec_ref = pytree.tree_flatten(ref)
    if spec != spec_ref or not torch.is_grad_enabled():
        return shown, False
    routed = False
    out = []
    for x, y in zip(a, b, strict=True):
        if (
            isinstance(x, torch.Tensor)
            and isinstance(y, torch.Tensor)
            and y.requires_grad
            and x.is_floating_point()
            and x.shape == y.shape
        ):
            x = _Route.apply(x.detach(), y)
            routed = True
        out.append(x)
    return (pytree.tree_unflatten(out, spec), True) if routed else (shown, False)


def link_inputs(original: Any, prepared: Any, dtype: torch.dtype) -> Any:
    """``prepared`` (cast copies of ``original``) with every float tensor whose original
    requires grad replaced by ``original.to(dtype)``: gradients reach the script's tensors."""
    a, spec = pytree.tree_flatten(original)
    b, spec_b = pytree.tree_flatten(prepared)
    if spec != spec_b:
        return prepared
    out = [
        x.to(dtype, copy=True)
        if isinstance(x, torch.Tensor) and x.requires_grad and x.is_floating_point()
        else y
        for x, y in zip(a, b, strict=True)
    ]
    return pytree.tree_unflatten(out, spec)


class _Bound(torch.nn.Module):
    """``fn`` (a method of ``state``, or a function reading globals ``state`` holds) as a
    module's forward, for ``torch.func.functional_call``."""

    def __init__(self, state: torch.nn.Module, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.state = state
        self.fn = fn

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)


def linked_call(
    state: torch.nn.Module,
    fn: Callable[..., Any],
    tensors: dict[str, torch.Tensor],
    args: Any,
    kwargs: dict[str, Any],
    dtype: torch.dtype,
) -> Any:
    """``fn(*args, **kwargs)`` with ``state``'s parameters named in ``tensors`` replaced by
    ``tensors[name].to(dtype)`` (the script's own, requiring grad). A name whose attribute path
    does not reach that parameter (a submodule shadowed by an instance attribute) is left as
    it is: the call computes with what it reaches, as eager does."""
    own = dict(state.named_parameters())

    def reaches(name: str) -> bool:
        obj: Any = state
        try:
            for part in name.split("."):
                obj = getattr(obj, part)
        except AttributeError:
            return False
        return obj is own.get(name)

    linked = {
        f"state.{k}": v.to(dtype, copy=True)
        for k, v in tensors.items()
        if v.is_floating_point() and reaches(k)
    }
    if not linked or not torch.is_grad_enabled():
        return fn(*args, **kwargs)
    return torch.func.functional_call(_Bound(state, fn), linked, tuple(args), kwargs, strict=False)


def trainable(module: torch.nn.Module, prefix: str = "") -> dict[str, torch.Tensor]:
    """The parameters of ``module`` that require grad, by name (``prefix`` prepended)."""
    return {f"{prefix}{n}": p for n, p in module.named_parameters() if p.requires_grad}


class Training:
    """The tensors a run's compiled calls touched, and what the script's training left."""

    def __init__(self, filename: str) -> None:
        self.filename = filename
        self.touched: dict[int, tuple[str, torch.Tensor, int]] = {}
        self.autograd: list[Any] = []
        self.routed = False

    def touch(self, call: int, refs: list[tuple[str, torch.Tensor]]) -> None:
        """Tensors call ``call`` read (first touch wins: its name and version are kept)."""
        for name, t in refs:
            self.touched.setdefault(id(t), (f"call{call}.{name}", t, t._version))

    def grad_fn(self, real: Callable[..., Any]) -> Callable[..., Any]:
        """``torch.autograd.grad`` for the script: what the script's own calls return is kept."""

        def grad(*args: Any, **kwargs: Any) -> Any:
            result = real(*args, **kwargs)
            caller = sys._getframe(1).f_code.co_filename
            if caller == self.filename and len(self.autograd) < MAX_AUTOGRAD_CALLS:
                self.autograd.append(
                    [g.detach().clone() if isinstance(g, torch.Tensor) else None for g in result]
                )
            return result

        return grad

    def results(self, as_reference: bool) -> dict[str, torch.Tensor] | None:
        """Gradients, updated values and ``autograd.grad`` results; float ones as float64 when
        ``as_reference`` (the float64 run) and a call was routed, else as they are."""
        out: dict[str, torch.Tensor] = {}
        for key, t, version in self.touched.values():
            if t.grad is not None:
                out[key] = t.grad.detach().clone()
            if t._version != version:
                call, name = key.split(".", 1)
                out[f"{call}.updated:{name}"] = t.detach().clone()
        for j, grads in enumerate(self.autograd):
            for k, g in enumerate(grads):
                if g is not None:
                    out[f"autograd.grad[{j}][{k}]"] = g
        if as_reference and self.routed:
            out = {k: v.double() if v.dtype in _REFERENCE_DTYPES else v for k, v in out.items()}
        self.touched.clear()  # the script's tensors go with its run
        self.autograd = []
        return out or None
