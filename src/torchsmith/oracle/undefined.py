"""Values undefined by construction: outputs of ``torch.empty`` and its family never written.

``torch.empty``, ``empty_like``, ``new_empty``, ``empty_strided``, ``torch.Tensor(size)`` and
``torch.FloatTensor(size)`` return uninitialized memory: two eager runs differ there, and a
compiled run may hold anything. Such an output is still compared by structure, shape, dtype and
strides; its values are not. :class:`UndefinedTracker` (a ``TorchDispatchMode``) follows one
eager run and says, per output leaf, which elements hold undefined values.

**The rule.** A storage an empty-factory op creates starts with every element *unwritten*. Per
dispatched op (what the mode sees: every ATen call from Python, composite ops decomposed):

- a *write-only* op marks the elements it writes as written: ``out=`` arguments, and ``self`` of
  ``fill_``, ``zero_``, ``copy_`` and the random fills (``normal_``, ``uniform_``, ...), unless
  what it reads is itself undefined, in which case they become unwritten;
- any other op that mutates a tensor (``add_``, ``index_put_``, ``scatter_``, ...) reads it as
  well: when what it reads (its other inputs, or the mutated region itself) holds an unwritten
  element, the whole mutated region becomes unwritten; otherwise nothing changes;
- an op that reads an unwritten element gives new outputs that are wholly undefined (taint);
  views share their base's storage and need nothing.

An output leaf's elements are undefined where its storage region is unwritten. So
``torch.empty(n).fill_(1)``, ``torch.add(a, b, out=torch.empty(n))``, ``torch.empty(n).copy_(x)``
and ``e = torch.empty(n); e[:] = x`` are normal outputs, compared by value; ``e[:2] = 1`` leaves
the rest of ``e`` undefined and only those elements go uncompared.

**Limits.** Coarse where it must be, in the direction of comparing less, never more: a
partial write by a read-modify-write op (``index_put_`` on an empty buffer) leaves the buffer
undefined; a taint covers a whole output even when only one element came from an unwritten one;
a dtype view of a storage (``e.view(torch.int32)``) is judged by the whole storage. Writes the
mode cannot see (a C++ kernel that fills an ``at::empty`` buffer through a direct call, not the
dispatcher) cannot happen to a storage the mode saw created, except inside one op, whose output
is then new. Values leaving as Python numbers (``.item()`` of an undefined element) are not
followed. The tracker never raises into the program: on an internal error it stops tracking and
reports nothing undefined.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.utils._pytree import tree_leaves

from torchsmith.oracle.outputs import flatten
from torchsmith.oracle.perturb import HopMode, is_hop

#: ATen overload packets whose outputs are uninitialized memory.
EMPTY_OPS = frozenset(
    {
        "aten::empty", "aten::empty_like", "aten::new_empty", "aten::empty_strided",
        "aten::new_empty_strided", "aten::empty_permuted",
    }
)  # fmt: skip

#: In-place ops that overwrite every element of ``self`` without reading it.
WRITE_ONLY_INPLACE = frozenset(
    {
        "aten::fill_", "aten::zero_", "aten::copy_", "aten::normal_", "aten::uniform_",
        "aten::random_", "aten::exponential_", "aten::geometric_", "aten::cauchy_",
        "aten::log_normal_", "aten::bernoulli_",
    }
)  # fmt: skip


#: Mutated arguments of other ops that are written without being read (found by running every
#: OpInfo sample under the tracker: only the empty factories and ``rrelu`` were left undefined).
WRITE_ONLY_ARGS = {"aten::rrelu_with_noise": "noise", "aten::rrelu_with_noise_": "noise"}


def _key(t: torch.Tensor) -> int:
    return t.untyped_storage()._cdata


class _Storage:
    """One tracked storage: ``written[i]`` per element of ``itemsize`` bytes."""

    def __init__(self, t: torch.Tensor, written: bool) -> None:
        st = t.untyped_storage()
        self.keep = st  # holds the storage so its address is not reused while tracked
        self.itemsize = t.element_size()
        self.written = torch.full((st.nbytes() // self.itemsize,), written, dtype=torch.bool)

    def region(self, t: torch.Tensor) -> torch.Tensor | None:
        """``written`` as seen through ``t`` (its shape), or None for a dtype view."""
        if t.element_size() != self.itemsize:
            return None
        return self.written.as_strided(t.shape, t.stride(), t.storage_offset())


def _plain(t: Any) -> bool:
    return (
        isinstance(t, torch.Tensor)
        and t.layout == torch.strided
        and not t.is_meta
        and type(t) in (torch.Tensor, torch.nn.Parameter)
    )


class UndefinedTracker(HopMode):
    """Follows one eager run; :meth:`undefined` then gives each output leaf's undefined
    elements. Enter it around the run (``runner.run(..., context=lambda: tracker)``)."""

    def __init__(self) -> None:
        super().__init__()
        self.storages: dict[int, _Storage] = {}
        self.broken: str | None = None

    # -- queries -------------------------------------------------------------------------------
    def unwritten(self, t: torch.Tensor) -> bool:
        """Does ``t`` read any unwritten element?"""
        s = self.storages.get(_key(t)) if _plain(t) else None
        if s is None:
            return False
        region = s.region(t)
        if region is None:
            return not bool(s.written.all())
        return t.numel() > 0 and not bool(region.all())

    def undefined(self, obj: Any, prefix: str) -> dict[str, torch.Tensor]:
        """Per tensor leaf of ``obj`` (paths as :func:`flatten` gives them) with any undefined
        element: a bool mask of its shape, True where the value is undefined."""
        if self.broken is not None or not self.storages:
            return {}
        out: dict[str, torch.Tensor] = {}
        for path, leaf in flatten(obj, prefix):
            if not _plain(leaf) or leaf.numel() == 0:
                continue
            s = self.storages.get(_key(leaf))
            if s is None:
                continue
            region = s.region(leaf)
            if region is None:
                mask = torch.full(leaf.shape, not bool(s.written.all()), dtype=torch.bool)
            else:
                mask = ~region
            if mask.any():
                out[path] = mask.clone()
        return out

    # -- bookkeeping ---------------------------------------------------------------------------
    def _mark(self, t: torch.Tensor, written: bool) -> None:
        if not _plain(t) or t.numel() == 0:
            return
        s = self.storages.get(_key(t))
        if s is None:
            if written:
                return  # an untracked storage is wholly defined already
            s = self.storages[_key(t)] = _Storage(t, True)
        region = s.region(t)
        if region is None:
            if not written:
                s.written.fill_(False)
            return
        region.fill_(written)
        if written and bool(s.written.all()):
            del self.storages[_key(t)]

    def _new(self, t: Any) -> None:
        if _plain(t) and t.numel() > 0:
            self.storages[_key(t)] = _Storage(t, False)

    def _track(self, func: Any, args: tuple, kwargs: dict, out: Any) -> None:
        name = func._schema.name
        if name in EMPTY_OPS:
            for t in tree_leaves(out):
                self._new(t)
            return
        if not self.storages:
            return  # nothing undefined exists yet: nothing to follow
        schema = func._schema
        write_only: list[torch.Tensor] = []
        mutated: list[torch.Tensor] = []
        reads: list[Any] = []
        for i, arg in enumerate(schema.arguments):
            value = args[i] if i < len(args) else kwargs.get(arg.name)
            info = arg.alias_info
            if info is not None and info.is_write and isinstance(value, torch.Tensor):
                if (
                    arg.kwarg_only
                    or (name in WRITE_ONLY_INPLACE and i == 0)
                    or WRITE_ONLY_ARGS.get(name) == arg.name
                ):
                    write_only.append(value)
                else:
                    mutated.append(value)
                    reads.append(value)
            else:
                reads.extend(tree_leaves(value))
        tainted = any(self.unwritten(t) for t in reads if isinstance(t, torch.Tensor))
        for t in write_only:
            self._mark(t, not tainted)
        if tainted:
            for t in mutated:
                self._mark(t, False)
            fresh = [
                t
                for r, t in zip(schema.returns, _returns(out, len(schema.returns)), strict=False)
                if r.alias_info is None
            ]
            for t in tree_leaves(fresh):
                self._new(t)

    def __torch_dispatch__(self, func: Any, types: Any, args: tuple = (), kwargs: Any = None):
        if is_hop(func):  # its body's ops come through here one by one
            return self.hop(func, args, kwargs)
        kwargs = kwargs or {}
        out = func(*args, **kwargs)
        if self.broken is None:
            try:
                self._track(func, args, kwargs, out)
            except Exception as e:  # never let the bookkeeping change what the program does
                self.broken = f"{type(e).__name__}: {e}"[:200]
                self.storages.clear()
        return out


def _returns(out: Any, n: int) -> list[Any]:
    if n == 1:
        return [out]
    return list(out) if isinstance(out, tuple | list) else [out]


def values_undefined(runner: Any, dtype: torch.dtype | None) -> dict[str, torch.Tensor]:
    """One more eager run of ``runner`` under the tracker: its outputs' undefined elements by
    leaf path (prefix ``runner.out_prefix``); empty when there are none or the run raises.

    Only positions come from this run, never values: under a Python dispatch mode a few ops take
    other kernels (``linalg.svdvals``, ``linalg.eigvalsh``, ``norm`` differ in the last bits),
    so the judged runs themselves never run under the tracker."""
    tracker = UndefinedTracker()
    try:
        run = runner.run(None, dtype, context=lambda: tracker)
    except Exception:
        return {}
    return tracker.undefined(runner.part(run, runner.out_prefix, dtype), runner.out_prefix)


class Undefined:
    """The undefined output values of one program, found on first need (one tracked eager
    run, :func:`values_undefined`) and blanked in the runs given to :meth:`apply`."""

    def __init__(self, runner: Any, dtype: torch.dtype | None) -> None:
        self.runner, self.dtype = runner, dtype
        self.masks: dict[str, torch.Tensor] | None = None

    @property
    def paths(self) -> list[str]:
        return sorted(self.masks or {})

    def apply(self, *runs: Any) -> bool:
        """Blank the undefined values of each run's outputs (None runs skipped); True when
        some leaf was blanked."""
        if self.masks is None:
            self.masks = values_undefined(self.runner, self.dtype)
        prefix = self.runner.out_prefix
        done = False
        for run in runs:
            if run is not None and self.masks:
                done |= bool(blank(self.runner.part(run, prefix, self.dtype), prefix, self.masks))
        return done


def blank(obj: Any, prefix: str, masks: dict[str, torch.Tensor]) -> list[str]:
    """Set the undefined elements of ``obj``'s leaves to zero, in place, where a leaf has the
    mask's shape (a leaf of another shape is left for the shape check to report). Returns the
    paths blanked. ``obj`` must be a run's own output, never a pristine input."""
    if not masks:
        return []
    done = []
    with torch.no_grad():
        for path, leaf in flatten(obj, prefix):
            mask = masks.get(path)
            if mask is None or not isinstance(leaf, torch.Tensor) or leaf.shape != mask.shape:
                continue
            if leaf.is_meta:
                continue
            try:
                leaf.masked_fill_(mask.to(leaf.device), 0)
            except RuntimeError:  # an expanded (self-overlapping) leaf cannot be written
                continue
            done.append(path)
    return done
