"""What every ``rewrites`` template writes with: the program being built and its input tensors.

A template fills a :class:`Spec` (the target's parameters, body, ``__init__`` lines for a
``Model``, the input expressions, the declared ``compile_config`` / ``check_options``, and the
features that show its pattern fired), and :func:`render_spec` writes it as a canonical program.
Input tensors come from :func:`tensor`, an expression over a seeded ``torch.Generator`` ``g``
that can also lay the tensor out transposed, permuted, channels-last, expanded (broadcast) or
at a storage offset. Everything here is pure: it draws from the ``random.Random`` it is given.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence
from typing import Any

from torchsmith.program.format import model_class_head

#: How often each float dtype is drawn where a template allows all four.
FLOAT_WEIGHTS = {"float32": 6.0, "float64": 1.5, "float16": 1.25, "bfloat16": 1.25}
LAYOUTS = ("contiguous", "transposed", "permuted", "channels_last", "expanded", "offset")


@dataclasses.dataclass
class Spec:
    """One program being written: a function ``fn`` (``module=False``) or a ``Model``."""

    params: list[str] = dataclasses.field(default_factory=list)
    inputs: list[str] = dataclasses.field(default_factory=list)  # one expression per param
    body: list[str] = dataclasses.field(default_factory=list)  # lines of fn / forward
    ret: str = ""
    module: bool = False
    init: list[str] = dataclasses.field(default_factory=list)  # Model.__init__ lines
    imports: set[str] = dataclasses.field(default_factory=set)  # extra modules ("math")
    config: dict[str, Any] = dataclasses.field(default_factory=dict)  # compile_config
    check: dict[str, Any] = dataclasses.field(default_factory=dict)  # check_options
    compile_kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)
    #: coverage features that show the pattern fired (any of them) ...
    expect: tuple[str, ...] = ()
    #: ... or features whose absence shows it (all absent): a rewritten op never lowered
    absent: tuple[str, ...] = ()
    variant: dict[str, Any] = dataclasses.field(default_factory=dict)  # what was drawn

    def add_input(self, name: str, expr: str) -> str:
        self.params.append(name)
        self.inputs.append(expr)
        return name

    def note(self, **kv: Any) -> None:
        self.variant.update(kv)


#: A template's renderer: (rng, target catalog entry) -> the program's spec.
Render = Callable[[random.Random, str], Spec]


@dataclasses.dataclass(frozen=True)
class Template:
    """A program family that matches one or more catalog entries (``entries``)."""

    name: str
    entries: tuple[str, ...]
    render: Render


def permutation(rng: random.Random, rank: int) -> tuple[list[int], list[int]]:
    """A random permutation of ``range(rank)`` that is not the identity, and its inverse."""
    perm = list(range(rank))
    while perm == sorted(perm):
        rng.shuffle(perm)
    inv = [0] * rank
    for i, p in enumerate(perm):
        inv[p] = i
    return perm, inv


def fmt(value: Any) -> str:
    """A Python literal for ``value`` (floats as their shortest repr, dtypes as ``torch.x``)."""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str) and value in DTYPES:
        return f"torch.{value}"
    if isinstance(value, tuple | list):
        inner = ", ".join(fmt(v) for v in value)
        return f"({inner},)" if isinstance(value, tuple) and len(value) == 1 else f"({inner})"
    return repr(value)


DTYPES = (
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "bool",
)


def shape_lit(shape: Sequence[int]) -> str:
    return fmt(tuple(shape))


def sizes(rng: random.Random, rank: int, lo: int = 1, hi: int = 7) -> list[int]:
    """``rank`` sizes in ``[lo, hi]``, size 1 and odd sizes included."""
    pool = [v for v in (1, 2, 3, 4, 5, 7, 8, 9) if lo <= v <= hi] or [lo]
    return [rng.choice(pool) for _ in range(rank)]


def pick_float(rng: random.Random, allowed: Sequence[str] = tuple(FLOAT_WEIGHTS)) -> str:
    """A float dtype name, float32 most often."""
    names = [d for d in FLOAT_WEIGHTS if d in allowed]
    return rng.choices(names, weights=[FLOAT_WEIGHTS[d] for d in names], k=1)[0]


def pick_layout(rng: random.Random, rank: int, allow: Sequence[str] = LAYOUTS) -> str:
    """A layout that makes sense for a tensor of ``rank`` (contiguous half the time)."""
    fits = [
        name
        for name in allow
        if name == "contiguous"
        or (name == "transposed" and rank >= 2)
        or (name == "permuted" and rank >= 3)
        or (name == "channels_last" and rank == 4)
        or name in ("expanded", "offset")
    ]
    if "contiguous" in fits and rng.random() < 0.5:
        return "contiguous"
    return rng.choice(fits)


def _base(shape: Sequence[int], dtype: str, low: int, high: int) -> str:
    dims = shape_lit(shape)
    if dtype == "bool":
        return f"(torch.randint(0, 2, {dims}, generator=g) > 0)"
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        return f"torch.randn({dims}, generator=g, dtype=torch.{dtype})"
    return f"torch.randint({low}, {high}, {dims}, generator=g, dtype=torch.{dtype})"


def tensor(
    rng: random.Random,
    shape: Sequence[int],
    dtype: str = "float32",
    layout: str = "contiguous",
    *,
    low: int = -4,
    high: int = 5,
    positive: bool = False,
) -> str:
    """An expression (over generator ``g``) for a tensor of ``shape``/``dtype`` laid out as
    ``layout``; ``positive`` floats are ``abs() + 0.5``. The values never depend on the layout's
    draws other than through ``rng``."""
    shape = list(shape)
    rank = len(shape)
    if layout == "transposed" and rank >= 2:
        base = shape[:-2] + [shape[-1], shape[-2]]
        expr = f"{_base(base, dtype, low, high)}.transpose(-2, -1)"
    elif layout == "permuted" and rank >= 3:
        perm, inv = permutation(rng, rank)
        base = [shape[inv[j]] for j in range(rank)]
        expr = f"{_base(base, dtype, low, high)}.permute{fmt(tuple(perm))}"
    elif layout == "channels_last" and rank == 4:
        expr = f"{_base(shape, dtype, low, high)}.contiguous(memory_format=torch.channels_last)"
    elif layout == "expanded" and any(s > 1 for s in shape):
        dim = rng.choice([i for i, s in enumerate(shape) if s > 1])
        base = list(shape)
        base[dim] = 1
        expr = f"{_base(base, dtype, low, high)}.expand{shape_lit(shape)}"
    elif layout == "offset":
        numel = 1
        for s in shape:
            numel *= s
        k = rng.choice((1, 3, 5))
        expr = f"{_base([numel + k], dtype, low, high)}[{k}:].view{shape_lit(shape)}"
    else:
        expr = _base(shape, dtype, low, high)
    if positive and dtype not in ("bool",) and not dtype.startswith(("int", "uint")):
        expr = f"({expr}.abs() + 0.5)"
    return expr


def render_spec(spec: Spec, header: Sequence[str], input_seed: int) -> str:
    """The canonical program source for ``spec`` (``header`` lines become the docstring)."""
    text_all = "\n".join([*spec.init, *spec.body, spec.ret])
    lines = ['"""' + "\n".join(header) + '\n"""', ""]
    for mod in sorted(spec.imports):
        lines.append(f"import {mod}")
    lines.append("import torch")
    if spec.module:
        lines.append("import torch.nn as nn")
    if "F." in text_all:
        lines.append("import torch.nn.functional as F")
    lines += ["", ""]
    args = ", ".join(spec.params)
    if spec.module:
        lines += model_class_head(spec.init)
        lines += ["", f"    def forward(self, {args}):"]
        lines += [f"        {line}" for line in spec.body]
        lines += [f"        return {spec.ret}"]
    else:
        lines += [f"def fn({args}):"]
        lines += [f"    {line}" for line in spec.body]
        lines += [f"    return {spec.ret}"]
    lines += ["", "", "def get_inputs():", f"    g = torch.Generator().manual_seed({input_seed})"]
    lines += [f"    {name} = {expr}" for name, expr in zip(spec.params, spec.inputs)]
    lines += [f"    return [{', '.join(spec.params)}]"]
    for name, value in (
        ("compile_kwargs", spec.compile_kwargs),
        ("compile_config", spec.config),
        ("check_options", spec.check),
    ):
        if value:
            lines += ["", "", f"{name} = {dict(sorted(value.items()))!r}"]
    return "\n".join(lines) + "\n"


def buffer_init(
    name: str, shape: Sequence[int], dtype: str = "float32", seed: int = 0
) -> list[str]:
    """``__init__`` lines registering a seeded constant buffer ``name`` (freezing folds it)."""
    return [
        f"gb = torch.Generator().manual_seed({seed})",
        f'self.register_buffer("{name}", '
        f"torch.randn({shape_lit(shape)}, generator=gb, dtype=torch.{dtype}))",
    ]
