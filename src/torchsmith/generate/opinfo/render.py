"""OpInfo sample calls as canonical function programs: the pure half of the ``opinfo`` family.

Nothing here runs an op. :func:`render_program` turns a :class:`ProgramSpec` (how the op is
written, one ``SampleInput``-like object per call, the output facts the generator read from a
meta-device run) and a seeded ``random.Random`` into program source; the same spec and the same
random state give the same bytes. :mod:`torchsmith.generate.opinfo.generator` picks ops, samples and
modes, and validates the result in a worker.

Rendering rules:

* every tensor becomes a parameter of ``fn`` built in ``get_inputs()`` (``get_calls()`` for
  several calls), written by :func:`torchsmith.generate.opinfo.values.tensor_expr` (exact
  literals when small, ``make_tensor`` over the sample's range, layout kept);
* Python scalars, dtypes, strings, tuples and None are written in the call or, at random,
  passed as parameters of ``fn`` (positional, or keyword-only through ``get_kwargs()``); a
  value that differs between the calls of a sequence is always a parameter;
* zero to two follow-up ops from a small set that is defined for the output dtype (no float to
  int casts, no arithmetic on int8/int16, no sums of int64: ``notes/edge-values.md``).
"""

from __future__ import annotations

import dataclasses
import keyword
import random
import re
from collections.abc import Sequence
from typing import Any

import torch

from torchsmith.generate.opinfo.values import (
    FLOAT_DTYPES,
    Unrenderable,
    check_tensor,
    literal,
    tensor_expr,
)

_BINOPS = {"+", "-", "*", "/", "**", "%", "&", "|", "^", "@"}


@dataclasses.dataclass(frozen=True)
class CallForm:
    """How the op is written: ``func`` (``torch.x(...)``; ``order`` permutes the positional
    arguments of a wrapper such as ``einsum``), ``method`` (``x.name(...)``), ``attr``
    (``x.mT``), ``binop`` (reflected operator, ``other OP x``) or ``getitem`` (``x[idx]``)."""

    kind: str
    name: str
    order: tuple[int, ...] | None = None


@dataclasses.dataclass(frozen=True)
class OutInfo:
    """What a call returns: ``tensor``, ``seq`` (a tuple/list whose first item is a tensor)
    or ``other``; dtype and shape of that tensor."""

    kind: str
    dtype: torch.dtype | None = None
    shape: tuple[int, ...] = ()


@dataclasses.dataclass
class ProgramSpec:
    """Everything :func:`render_program` needs. ``samples`` hold ``.input``, ``.args`` and
    ``.kwargs`` (OpInfo ``SampleInput``s); one per call. ``outs``: one :class:`OutInfo` per
    sample, or None where unknown (then no follow-up op)."""

    form: CallForm
    samples: Sequence[Any]
    seed: int
    label: str
    dtype: torch.dtype
    mode: str = "args"
    attempt: int = 1
    grad: bool = False
    dynamic: bool = False
    exact: bool = False
    outs: Sequence[OutInfo | None] = ()
    lift: float = 0.35
    edge: bool = False  # samples with edge values (generate/edges.py): named in the header


# -- the call -----------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class _T:
    t: torch.Tensor


@dataclasses.dataclass(frozen=True)
class _Seq:
    kind: type
    items: tuple[Any, ...]


@dataclasses.dataclass(frozen=True)
class _Lit:
    value: Any
    text: str


def _has_tensor(v: Any) -> bool:
    if isinstance(v, torch.Tensor):
        return True
    if isinstance(v, list | tuple):
        return any(_has_tensor(x) for x in v)
    if isinstance(v, dict):
        return any(_has_tensor(x) for x in v.values())
    return False


def _tree(v: Any) -> Any:
    if isinstance(v, torch.Tensor):
        check_tensor(v)
        return _T(v)
    if isinstance(v, list | tuple) and not isinstance(v, torch.Size) and _has_tensor(v):
        if hasattr(v, "_fields"):
            raise Unrenderable("named tuple holding tensors")
        return _Seq(type(v), tuple(_tree(x) for x in v))
    if _has_tensor(v):
        raise Unrenderable("dict holding tensors")
    return _Lit(v, literal(v))


def _sig(node: Any) -> Any:
    if isinstance(node, _T):
        return ("T", str(node.t.dtype))
    if isinstance(node, _Seq):
        return (node.kind.__name__, tuple(_sig(x) for x in node.items))
    return ("L", type(node.value).__name__)


def call_parts(sample: Any) -> tuple[list[Any], dict[str, Any]]:
    """A sample's positional (its input first) and keyword arguments as value trees."""
    args = [_tree(sample.input), *(_tree(a) for a in sample.args)]
    return args, {str(k): _tree(v) for k, v in sample.kwargs.items()}


def signature(sample: Any) -> Any:
    """The argument structure of a sample: tensors by dtype, literals by type. Samples with the
    same signature can share one ``fn`` (values that differ become parameters)."""
    args, kwargs = call_parts(sample)
    return (tuple(_sig(a) for a in args), tuple((k, _sig(v)) for k, v in sorted(kwargs.items())))


def sample_numel(sample: Any) -> int:
    """Elements in all the sample's tensors."""
    total = 0

    def walk(v: Any) -> None:
        nonlocal total
        if isinstance(v, torch.Tensor):
            total += v.numel()
        elif isinstance(v, list | tuple):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)

    walk([sample.input, list(sample.args), dict(sample.kwargs)])
    return total


class _Writer:
    """Walks the value trees of all calls at once; decides names and parameters."""

    def __init__(self, spec: ProgramSpec, rng: random.Random) -> None:
        self.spec, self.rng = spec, rng
        self.n = len(spec.samples)
        self.params: list[str] = []
        self.calls: list[list[str]] = [[] for _ in range(self.n)]
        self.kwonly: dict[str, str] = {}
        self.tensors = self.scalars = 0
        # edge samples are written as exact literals up to the larger limit (NaN/inf kept)
        self.exact = spec.exact or spec.edge

    def param(self, exprs: list[str], prefix: str) -> str:
        count = self.tensors if prefix.startswith("x") else self.scalars
        name = f"{prefix}{count}"
        if prefix.startswith("x"):
            self.tensors += 1
        else:
            self.scalars += 1
        self.params.append(name)
        for call, e in zip(self.calls, exprs):
            call.append(e)
        return name

    def value(self, nodes: list[Any], kwarg: str | None = None, lift: bool = True) -> str:
        first = nodes[0]
        if isinstance(first, _T):
            return self.param([tensor_expr(n.t, self.exact) for n in nodes], "x")
        if isinstance(first, _Seq):
            width = len(first.items)
            if any(len(n.items) != width for n in nodes):
                raise Unrenderable("tensor lists of different lengths")
            if all(isinstance(x, _T) for x in first.items) and self.rng.random() < 0.35:
                exprs = [
                    self._seq(n.kind, [tensor_expr(x.t, self.exact) for x in n.items])
                    for n in nodes
                ]
                return self.param(exprs, "xs")
            items = [self.value([n.items[i] for n in nodes], lift=lift) for i in range(width)]
            return self._seq(first.kind, items)
        texts = [n.text for n in nodes]
        differ = len(set(texts)) > 1
        if not (differ or (lift and self.rng.random() < self.spec.lift)):
            return first.text
        if kwarg and not differ and _free_name(kwarg) and self.rng.random() < 0.5:
            self.kwonly[kwarg] = first.text
            return kwarg
        return self.param(texts, "a")

    @staticmethod
    def _seq(kind: type, items: list[str]) -> str:
        if kind is tuple:
            return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"
        return f"[{', '.join(items)}]"


def _free_name(name: str) -> bool:
    """A keyword argument's name can be a keyword-only parameter of ``fn``."""
    taken = {"torch", "fn", "y", "out"}
    return (
        name.isidentifier()
        and not keyword.iskeyword(name)
        and name not in taken
        and re.fullmatch(r"(x|xs|a)\d+", name) is None
    )


def _index(node: Any, w: _Writer, nodes: list[Any]) -> str:
    """The subscript of ``x[...]``: slices and Ellipsis in Python's own syntax."""

    def one(v: Any) -> str:
        if isinstance(v, slice):
            parts = ["" if p is None else literal(p) for p in (v.start, v.stop, v.step)]
            return ":".join(parts[:2]) + (f":{parts[2]}" if parts[2] else "")
        return literal(v)

    if isinstance(node, _Lit):
        if len({n.text for n in nodes}) > 1:
            raise Unrenderable("indices differ between calls")
        if isinstance(node.value, tuple) and node.value:
            return ", ".join(one(v) for v in node.value)
        return one(node.value)
    return w.value(nodes, lift=False)


def call_expr(spec: ProgramSpec, w: _Writer) -> str:
    """The op call of ``fn``'s body; registers parameters in ``w``."""
    parts = [call_parts(s) for s in spec.samples]
    sigs = {signature(s) for s in spec.samples}
    if len(sigs) != 1:
        raise Unrenderable("the calls' arguments differ in structure")
    form = spec.form
    n_pos = len(parts[0][0])
    if form.kind == "getitem":
        if n_pos != 2 or parts[0][1]:
            raise Unrenderable("getitem takes one index")
        x = w.value([p[0][0] for p in parts])
        return f"{x}[{_index(parts[0][0][1], w, [p[0][1] for p in parts])}]"
    pos = [w.value([p[0][i] for p in parts]) for i in range(n_pos)]
    kws = [f"{k}={w.value([p[1][k] for p in parts], kwarg=k)}" for k in parts[0][1]]
    if form.kind == "attr":
        if n_pos != 1 or kws:
            raise Unrenderable(f"attribute {form.name} takes no arguments")
        return f"{pos[0]}.{form.name}"
    if form.kind == "binop":
        if n_pos != 2 or kws or form.name not in _BINOPS:
            raise Unrenderable(f"operator {form.name} takes two operands")
        return f"{pos[1]} {form.name} {pos[0]}"
    if form.kind == "method":
        return f"{pos[0]}.{form.name}({', '.join(pos[1:] + kws)})"
    if form.order is not None:
        if len(form.order) != n_pos:
            raise Unrenderable(f"{form.name}: expected {len(form.order)} positional arguments")
        pos = [pos[i] for i in form.order]
    return f"{form.name}({', '.join(pos + kws)})"


# -- follow-up ops ------------------------------------------------------------------------------
def _dim_ok(shapes: list[tuple[int, ...]], nonempty: bool) -> int | None:
    ndim = len(shapes[0])
    if ndim == 0 or any(len(s) != ndim for s in shapes):
        return None
    d = -1 if ndim == 1 else -1 - (sum(shapes[0]) % ndim)
    if nonempty and any(s[d] == 0 for s in shapes):
        return None
    return d


def followup_choices(
    dtype: torch.dtype, shapes: list[tuple[int, ...]], grad: bool
) -> list[tuple[str, torch.dtype, int | None]]:
    """Follow-up ops defined for every value of ``dtype``: ``(template with {y}, result dtype,
    reduced dim or None)``. Float outputs get arithmetic and upcasts, integers only what
    cannot overflow into undefined behaviour, bools logic and counts."""
    d = _dim_ok(shapes, nonempty=False)
    d_nonempty = _dim_ok(shapes, nonempty=True)
    out: list[tuple[str, torch.dtype, int | None]] = []
    if dtype in FLOAT_DTYPES:
        scale = "0.5" if dtype in (torch.float16, torch.bfloat16) else "2"
        out += [("{y} * " + scale, dtype, None), ("{y} + 1", dtype, None)]
        out += [("torch.relu({y})", dtype, None), ("{y}.abs()", dtype, None)]
        out += [("torch.sigmoid({y})", dtype, None)]
        if d is not None:
            out += [(f"{{y}}.sum(dim={d})", dtype, d)]
            out += [(f"{{y}}.mean(dim={d}, keepdim=True)", dtype, None)]
        if dtype != torch.float64:
            out += [("{y}.to(torch.float64)", torch.float64, None)]
    elif grad:
        return []
    elif dtype in (torch.complex64, torch.complex128):
        real = torch.float32 if dtype == torch.complex64 else torch.float64
        out += [("{y}.abs()", real, None), ("{y} * 2", dtype, None)]
    elif dtype in (torch.int32, torch.int64):
        out += [("{y} * 2", dtype, None), ("{y} + 1", dtype, None)]
        out += [("{y}.clamp(min=0)", dtype, None), ("{y}.to(torch.float32)", torch.float32, None)]
        if d_nonempty is not None:
            out += [(f"{{y}}.amax(dim={d_nonempty})", dtype, d_nonempty)]
        if dtype == torch.int32 and d is not None:
            out += [(f"{{y}}.sum(dim={d})", torch.int64, d)]
    elif dtype == torch.uint8:
        out += [("{y} + 1", dtype, None), ("{y}.to(torch.int32)", torch.int32, None)]
        out += [("{y}.float()", torch.float32, None)]
        if d is not None:
            out += [(f"{{y}}.sum(dim={d})", torch.int64, d)]
    elif dtype in (torch.int8, torch.int16):
        out += [("{y}.to(torch.int32)", torch.int32, None), ("{y}.clamp(min=0)", dtype, None)]
        out += [("{y}.to(torch.float32)", torch.float32, None)]
    elif dtype == torch.bool:
        out += [("{y}.to(torch.int32)", torch.int32, None), ("~{y}", dtype, None)]
        out += [("{y}.float()", torch.float32, None), ("torch.logical_not({y})", dtype, None)]
        if d is not None:
            out += [(f"{{y}}.sum(dim={d})", torch.int64, d)]
    return out


def followups(spec: ProgramSpec, rng: random.Random) -> list[str]:
    """Zero to two follow-up statements ``y = ...`` for the call's (first tensor) result."""
    outs = list(spec.outs)
    if not outs or any(o is None or o.kind == "other" for o in outs):
        return []
    first = outs[0]
    assert first is not None and first.dtype is not None
    if any(o is None or o.dtype != first.dtype or o.kind != first.kind for o in outs):
        return []
    shapes = [o.shape for o in outs if o is not None]
    dtype = first.dtype
    lines: list[str] = []
    for _ in range(rng.choices([0, 1, 2], weights=[0.3, 0.4, 0.3])[0]):
        choices = followup_choices(dtype, shapes, spec.grad)
        if not choices:
            break
        template, dtype, dim = rng.choice(choices)
        lines.append("y = " + template.format(y="y"))
        if dim is not None:
            shapes = [s[:dim] + s[dim + 1 :] if dim != -1 else s[:-1] for s in shapes]
    return lines


# -- the program --------------------------------------------------------------------------------
def render_program(spec: ProgramSpec, rng: random.Random) -> str:
    """The program source for ``spec``; every random choice comes from ``rng``. Raises
    :class:`Unrenderable` when a sample cannot be written as source."""
    if not spec.samples:
        raise Unrenderable("no sample")
    w = _Writer(spec, rng)
    call = call_expr(spec, w)
    more = followups(spec, rng)
    kind = spec.outs[0].kind if spec.outs and spec.outs[0] is not None else "other"
    body: list[str]
    if more and kind == "seq":
        body = [f"out = {call}", "y = out[0]", *more, "return (y, *out[1:])"]
    elif more:
        body = [f"y = {call}", *more, "return y"]
    else:
        body = [f"return {call}"]
    sig = list(w.params)
    if w.kwonly:
        sig += ["*", *w.kwonly]
    dt = str(spec.dtype).removeprefix("torch.")
    lines = [
        f"# Generated by torchsmith opinfo: seed={spec.seed} attempt={spec.attempt}",
        f"# op: {spec.label}  dtype: {dt}  mode: {spec.mode}  calls: {len(spec.samples)}",
        f"# ops: {spec.label}",
        *(["# values: edge values (notes/edge-values.md, BUG side only)"] if spec.edge else []),
        "import torch",
        "",
        "",
        f"def fn({', '.join(sig)}):",
        *(f"    {line}" for line in body),
        "",
        "",
    ]
    if len(spec.samples) == 1:
        lines += ["def get_inputs():", f"    torch.manual_seed({spec.seed})"]
        lines += ["    return [", *(f"        {e}," for e in w.calls[0]), "    ]"]
    else:
        lines += ["def get_calls():", f"    torch.manual_seed({spec.seed})", "    return ["]
        for call_args in w.calls:
            lines += ["        [", *(f"            {e}," for e in call_args), "        ],"]
        lines += ["    ]"]
    if w.kwonly:
        items = ", ".join(f"{k!r}: {v}" for k, v in w.kwonly.items())
        lines += ["", "", "def get_kwargs():", f"    return {{{items}}}"]
    settings = []
    if spec.dynamic:
        settings.append('compile_kwargs = {"dynamic": True}')
    if spec.grad:
        settings.append('check_options = {"grad": True}')
    if settings:
        lines += ["", "", *settings]
    return "\n".join(lines).replace("[\n    ]", "[]") + "\n"


__all__ = [
    "CallForm",
    "OutInfo",
    "ProgramSpec",
    "call_expr",
    "call_parts",
    "followup_choices",
    "followups",
    "render_program",
    "sample_numel",
    "signature",
]
