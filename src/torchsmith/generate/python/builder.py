"""The ``python`` family's program builder: what fragments write into, and how it becomes source.

A :class:`Builder` holds one program under construction: the running tensor ``h`` (its shape
after the batch dimension, ``rest``; dimension 0 is the batch, which may change between calls and
is only ever read as ``h.shape[0]``), the arguments of the function under test with one source
expression per call, module-level definitions, ``Model.__init__`` lines, body lines, extra
outputs and ``before_call`` lines. :meth:`Builder.render` writes the canonical program. Nothing
here runs program code: building and rendering are pure, and driven by the builder's ``rng``
alone (same seed, same bytes).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence

from torchsmith.program.format import model_class_head

IMPORT_ORDER = (
    "abc", "collections", "dataclasses", "enum", "functools", "itertools", "math", "struct",
    "traceback", "types", "typing",
)  # fmt: skip


@dataclasses.dataclass
class Param:
    """One argument of the function under test: a source expression per call.

    ``keyword`` arguments are keyword-only with a ``default``; they are constant over the calls
    and passed through ``get_kwargs()`` unless ``passed`` is False (then the default applies).
    """

    name: str
    values: list[str]
    kind: str
    keyword: bool = False
    default: str | None = None
    passed: bool = True


@dataclasses.dataclass(frozen=True)
class Fragment:
    """A small valid piece with a tensor-in/tensor-out contract on ``h``.

    ``apply(b)`` writes it into the builder; ``ok(b)`` says whether it fits the builder's state
    (its shape); ``where`` is ``any``, ``module`` (needs ``self``) or ``function``;
    ``fullgraph`` when it never breaks the graph on purpose or by a construct Dynamo may not
    trace (only then may a program ask for ``fullgraph=True``).
    """

    name: str
    apply: Callable[[Builder], None]
    ok: Callable[[Builder], bool] = lambda b: True
    weight: float = 1.0
    fullgraph: bool = False
    where: str = "any"


class Builder:
    """One program under construction (see the module docstring). Fragments call its methods."""

    def __init__(
        self,
        rng: random.Random,
        *,
        module: bool,
        batch: Sequence[int],
        rest: Sequence[int],
        dtypes: Sequence[str],
        input_seed: int,
    ) -> None:
        self.rng = rng
        self.module = module
        self.batch = list(batch)  # dimension 0 of x, per call
        self.ncalls = len(self.batch)
        self.x_rest = tuple(rest)  # x's shape after dimension 0 (x is never rebound)
        self.rest = list(rest)  # h's shape after dimension 0, as the body goes
        self.dtypes = list(dtypes)  # x's dtype per call
        self.input_seed = input_seed
        self.params: list[Param] = []
        self.imports: set[str] = set()
        self.toplevel: dict[str, str] = {}  # key -> module-level block, in insertion order
        self.init: list[str] = []  # Model.__init__ lines (module programs)
        self.body: list[str] = []
        self.outputs: list[str] = []
        self.before: list[str] = []
        self.before_globals: list[str] = []
        self.features: dict[str, None] = {}  # ordered set
        self.fragments: list[str] = []
        self.fullgraph_safe = True
        self.config: dict[str, object] = {}
        self._n = 0

    # -- state --------------------------------------------------------------------------------
    @property
    def sequence(self) -> bool:
        return self.ncalls > 1

    @property
    def rank(self) -> int:
        return 1 + len(self.rest)

    @property
    def last(self) -> int:
        return self.rest[-1]

    @property
    def self_(self) -> str:
        """``self.`` inside a module's forward, ``""`` in a function."""
        return "self." if self.module else ""

    def fresh(self, stem: str) -> str:
        """A local or global name not used before in this program."""
        self._n += 1
        return f"{stem}{self._n}"

    def feature(self, *names: str) -> None:
        for name in names:
            self.features[name] = None

    def choice(self, options: Sequence[str]) -> str:
        return options[self.rng.randrange(len(options))]

    # -- what fragments write -------------------------------------------------------------------
    def emit(self, *lines: str) -> None:
        """Body lines, indented relative to the body (4 spaces per nested block)."""
        for line in lines:
            self.body.extend(line.split("\n"))

    def top(self, key: str, block: str) -> None:
        """A module-level definition, written once per key (helpers shared by fragments)."""
        self.toplevel.setdefault(key, block)

    def need(self, *modules: str) -> None:
        """Import ``modules`` (stdlib names of :data:`IMPORT_ORDER`; any other is refused, so a
        fragment cannot emit code whose import is silently left out)."""
        if unknown := [m for m in modules if m not in IMPORT_ORDER]:
            raise ValueError(f"Builder.need: not in IMPORT_ORDER: {', '.join(unknown)}")
        self.imports.update(modules)

    def output(self, expr: str) -> str:
        """An extra output returned after ``h``: ``expr`` as it is at this point of the body
        (a plain name is returned as it is at the end)."""
        if not expr.isidentifier():
            name = self.fresh("out")
            self.emit(f"{name} = {expr}")
            expr = name
        self.outputs.append(expr)
        return expr

    def on_before(self, *lines: str, globals_: Sequence[str] = ()) -> None:
        """Lines of ``before_call(i, target)``; they must set state from ``i`` alone (absolute
        values, never increments), so every run of the sequence sees the same states."""
        self.before.extend(lines)
        for g in globals_:
            if g not in self.before_globals:
                self.before_globals.append(g)
        self.feature("before_call")

    def per_call(self, options: Sequence[str], vary: bool) -> list[str]:
        """One value per call: the same one, or (``vary`` in a sequence) a changing one."""
        first = self.choice(options)
        if not (vary and self.sequence and len(options) > 1):
            return [first] * self.ncalls
        values = [first]
        for _ in range(self.ncalls - 1):
            values.append(self.choice([o for o in options if o != values[-1]]))
        return values

    def param(
        self,
        stem: str,
        kind: str,
        options: Sequence[str],
        *,
        vary: float = 0.0,
        keyword: float = 0.0,
    ) -> str:
        """A new argument of ``kind`` with values drawn from ``options`` (source expressions;
        tensors may use the generator ``g`` and the call's ``x``). It changes between calls
        with probability ``vary`` (in a sequence) and is keyword-only with ``keyword``."""
        name = self.fresh(stem)
        values = self.per_call(options, self.rng.random() < vary)
        if len(set(values)) > 1:
            scalar = kind in ("scalar", "count", "flag", "mode", "dtype")
            self.feature("seq:scalar" if scalar else f"seq:{kind}")
            if len({_pytype(v) for v in values}) > 1:
                self.feature("seq:type")
        elif self.rng.random() < keyword and kind != "alias":
            passed = self.rng.random() < 0.6
            default = values[0] if not passed else self.choice(options)
            self.params.append(Param(name, values, kind, True, default, passed))
            self.feature("kwargs" if passed else "default_arg")
            return name
        self.params.append(Param(name, values, kind))
        return name

    def param_values(self, stem: str, kind: str, values: Sequence[str]) -> str:
        """A new positional argument with the given source expression per call."""
        name = self.fresh(stem)
        if len(set(values)) > 1:
            self.feature(f"seq:{kind}")
        self.params.append(Param(name, list(values), kind))
        return name

    def before_choice(self, options: Sequence[str]) -> str:
        """A literal tuple indexed by ``i``: one value per call (``(1.5, 0.5)[i]``)."""
        values = [self.choice(options) for _ in range(self.ncalls)]
        if self.sequence and len(set(values)) == 1 and len(options) > 1:
            values[-1] = self.choice([o for o in options if o != values[0]])
        return f"({', '.join(values)}{',' if len(values) == 1 else ''})[i]"

    # -- rendering --------------------------------------------------------------------------------
    def signature(self) -> str:
        pos = ["x"] + [p.name for p in self.params if not p.keyword]
        kw = [f"{p.name}={p.default}" for p in self.params if p.keyword]
        if self.module:
            pos.insert(0, "self")
        return ", ".join(pos + (["*"] + kw if kw else []))

    def _call_list(self, i: int) -> str:
        return "[" + ", ".join(["x"] + [p.values[i] for p in self.params if not p.keyword]) + "]"

    def _x_expr(self, i: int) -> str:
        dims = ", ".join(str(d) for d in (self.batch[i], *self.x_rest))
        dtype = "" if self.dtypes[i] == "float32" else f", dtype=torch.{self.dtypes[i]}"
        return f"torch.randn({dims}, generator=g{dtype})"

    def render(self, header: Sequence[str], compile_kwargs: dict, compile_config: dict) -> str:
        """The canonical program's source."""
        out = [f"# {line}" for line in header] + [""]
        stdlib = [f"import {m}" for m in IMPORT_ORDER if m in self.imports]
        out += [*stdlib, ""] if stdlib else []
        out.append("import torch")
        if self.module:
            out.append("import torch.nn as nn")
        for block in self.toplevel.values():
            out += ["", "", block]
        ret = "h" if not self.outputs else ", ".join(["h", *self.outputs])
        out += ["", ""]
        if self.module:
            out += model_class_head(self.init)
            out += ["", f"    def forward({self.signature()}):", "        h = x"]
            out += [f"        {line}" if line else "" for line in self.body]
            out.append(f"        return {ret}")
        else:
            out += [f"def fn({self.signature()}):", "    h = x"]
            out += [f"    {line}" if line else "" for line in self.body]
            out.append(f"    return {ret}")
        out += self._render_inputs()
        kwargs = [p for p in self.params if p.keyword and p.passed]
        if kwargs:
            items = ", ".join(f"{p.name!r}: {p.values[0]}" for p in kwargs)
            out += ["", "", "def get_kwargs():", f"    return {{{items}}}"]
        if self.before:
            out += ["", "", "def before_call(i, target):"]
            if self.before_globals:
                out.append(f"    global {', '.join(self.before_globals)}")
            out += [f"    {line}" for line in self.before]
        out.append("")
        if compile_kwargs:
            out += ["", f"compile_kwargs = {compile_kwargs!r}"]
        if compile_config:
            out += ["" if compile_kwargs else "", f"compile_config = {compile_config!r}"]
        return "\n".join(out).rstrip("\n") + "\n"

    def _render_inputs(self) -> list[str]:
        gen = f"    g = torch.Generator().manual_seed({self.input_seed})"
        if not self.sequence:
            return ["", "", "def get_inputs():", gen, f"    x = {self._x_expr(0)}"] + [
                f"    return {self._call_list(0)}"
            ]
        out = ["", "", "def get_inputs():", "    return get_calls()[0]"]
        out += ["", "", "def get_calls():", gen, "    calls = []"]
        for i in range(self.ncalls):
            out += [f"    x = {self._x_expr(i)}", f"    calls.append({self._call_list(i)})"]
        out.append("    return calls")
        return out


def _pytype(value: str) -> str:
    """The Python type a literal source value has (``2`` int, ``2.5`` float, ``True`` bool)."""
    if value in ("True", "False"):
        return "bool"
    if value.lstrip("-").isdigit():
        return "int"
    try:
        float(value)
        return "float"
    except ValueError:
        return "other"


__all__ = ["Builder", "Fragment", "Param"]
