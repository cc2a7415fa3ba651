"""A program's inputs as each run gets them: fresh copies (tensors moved, cast and made leaves
that require grad where asked or where the program made them so; aliasing kept; the Python
objects among them deep-copied), the tensors inside nested arguments, and the grad mode a
program runs in. The runtime (:mod:`torchsmith.oracle.runtime`) and the troubleshooting
commands prepare every run's inputs here."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable
from typing import Any

import torch


def map_tensors(obj: Any, fn: Callable[[torch.Tensor], Any]) -> Any:
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if isinstance(obj, list | tuple):
        mapped = [map_tensors(o, fn) for o in obj]
        return type(obj)(mapped) if not hasattr(obj, "_fields") else type(obj)(*mapped)
    if isinstance(obj, dict):
        return {k: map_tensors(v, fn) for k, v in obj.items()}
    return obj


def _fresh_objects(obj: Any, memo: dict[int, Any]) -> Any:
    """The inputs with every Python object that is neither a tensor nor a container (a deque,
    a partial, a user's object) deep-copied, one memo for all (an object passed twice is one
    copy): each run starts from the state the program built, never from the state an earlier
    run left (a counter its ``__iter__`` bumps, a deque it appended to). An object that cannot
    be copied is passed as it is."""
    if isinstance(obj, torch.Tensor) or obj is None:
        return obj
    if isinstance(obj, list | tuple):
        mapped = [_fresh_objects(o, memo) for o in obj]
        return type(obj)(mapped) if not hasattr(obj, "_fields") else type(obj)(*mapped)
    if isinstance(obj, dict) and type(obj) is dict:
        return {k: _fresh_objects(v, memo) for k, v in obj.items()}
    try:
        return copy.deepcopy(obj, memo)
    except Exception:  # a lock, a generator, an object whose __deepcopy__ refuses
        return obj


def _subclass_copy(t: torch.Tensor, device: str, dtype: torch.dtype, leaf: bool) -> torch.Tensor:
    """A copy of a tensor subclass that keeps its type and Python attributes: a
    ``__torch_function__`` subclass (``as_subclass``) is copied as a plain tensor and re-typed,
    outside its handler (which may not re-wrap what ``clone`` returns); a ``__torch_dispatch__``
    wrapper through its own ``clone``. Storage sharing with other inputs is not kept."""
    kind = type(t)
    if kind.__torch_dispatch__ is torch.Tensor.__torch_dispatch__:
        with torch._C.DisableTorchFunctionSubclass():
            raw = t.detach().clone().to(device=device, dtype=dtype)
        new = raw.as_subclass(kind)
        for key, value in getattr(t, "__dict__", {}).items():
            setattr(new, key, copy.copy(value))
    else:
        new = t.detach().clone().to(device=device, dtype=dtype)
    if (leaf or t.requires_grad) and (new.is_floating_point() or new.is_complex()):
        new.requires_grad_(True)
    return new


def tensor_leaves(obj: Any) -> list[torch.Tensor]:
    out: list[torch.Tensor] = []
    map_tensors(obj, out.append)
    return out


def _dynamo_marks(src: torch.Tensor, dst: torch.Tensor) -> None:
    for key, value in getattr(src, "__dict__", {}).items():
        if key.startswith("_dynamo"):
            setattr(dst, key, copy.copy(value))


def prepare_inputs(inputs: Any, device: str, dtype: torch.dtype | None, grad: bool = False) -> Any:
    """Fresh copies of the inputs, moved and cast; float leaves require grad when asked.

    Tensors that share storage (a tensor and its views, one tensor passed twice) still share it
    in the copies, with their sizes, strides and offsets, also when cast to another dtype or
    moved (the whole storage is copied once, then viewed): a float64 reference run sees the
    same aliasing as eager. A view stays a view (of a copy of its whole storage); a tensor
    that is no view and shares its storage with no other input is copied as a tensor of its
    own, same strides: never made a view the program did not make (``torch.compile`` and
    ``torch.export`` trace a view input through its base). With ``grad`` every float tensor
    is a leaf of its own; so is, always, a tensor the program made require grad (its copy
    requires grad too: the program runs as written, :func:`wants_grad`). A tensor subclass
    keeps its type and attributes (:func:`_subclass_copy`; its aliasing with other inputs is
    not kept).
    """
    bases: dict[tuple[int, int], torch.Tensor] = {}
    uses: Counter[tuple[int, int]] = Counter()  # input tensors per storage (a repeat counts)

    def storage_key(t: torch.Tensor) -> tuple[int, int] | None:
        try:
            st = t.untyped_storage()
            return (st.data_ptr(), st.nbytes())
        except (RuntimeError, NotImplementedError, TypeError):
            return None

    def count(t: torch.Tensor) -> torch.Tensor:
        key = storage_key(t) if t.layout == torch.strided else None
        if key is not None:
            uses[key] += 1
        return t

    map_tensors(inputs, count)
    inputs = _fresh_objects(inputs, {})

    def alone(t: torch.Tensor) -> torch.Tensor | None:
        """A copy of a tensor that is no view and shares nothing, or None."""
        key = storage_key(t)
        if t._is_view() or key is None or uses[key] > 1 or t.storage_offset() != 0:
            return None
        try:
            want = dtype if dtype is not None and t.is_floating_point() else t.dtype
            out = torch.empty_strided(t.size(), t.stride(), dtype=want, device=device)
            return out.copy_(t)
        except (RuntimeError, NotImplementedError, TypeError):  # overlapping strides
            return None

    def one(t: torch.Tensor) -> torch.Tensor:
        want = dtype if dtype is not None and t.is_floating_point() else t.dtype
        new: torch.Tensor | None = None
        plain = type(t) in (torch.Tensor, torch.nn.Parameter)
        if not plain:
            return _subclass_copy(t, device, want, leaf=(grad and t.is_floating_point()))
        shareable = plain and t.layout == torch.strided and not t.is_quantized and not t.is_meta
        leaf = (grad and t.is_floating_point()) or t.requires_grad
        if shareable and not leaf:
            new = alone(t)
        if new is None and shareable and not leaf:
            try:
                st = t.untyped_storage()
                key = (st.data_ptr(), st.nbytes())
                base = bases.get(key)
                if base is None or base.dtype != want:
                    flat = torch.empty(0, dtype=t.dtype, device=t.device).set_(st)
                    base = flat.to(device=device, dtype=want, copy=True)
                    bases.setdefault(key, base)
                if base.dtype == want:
                    new = base.as_strided(t.size(), t.stride(), t.storage_offset())
            except (RuntimeError, NotImplementedError, TypeError):
                new = None
        if new is None:
            new = t.detach().clone().to(device=device, dtype=want)
        _dynamo_marks(t, new)
        if leaf and (new.is_floating_point() or new.is_complex()):
            new.requires_grad_(True)
        return new

    return map_tensors(inputs, one)


def wants_grad(calls: Any) -> bool:
    """Whether a program runs with grad mode on without ``--grad``: when an input it builds
    requires grad (``torch.ones(3, requires_grad=True)``), as its author ran it, and then its
    gradients are judged too, as with ``--grad`` (a hook, a custom ``backward`` run outside the
    compiled call). Otherwise forward runs without grad (the inference path; ``--grad`` adds the
    training path and a backward). Invariant: the same program gets the same mode in the eager,
    compiled and float64 runs (inputs are prepared alike for each)."""
    return any(t.requires_grad for t in tensor_leaves(calls))
