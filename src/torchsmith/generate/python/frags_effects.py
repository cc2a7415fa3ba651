"""``python`` family fragments, part 3: graph breaks, side effects, aliasing and modules.

Same contract as part 1 (:mod:`torchsmith.generate.python.frags_control`). State that outlives a call
(a global, a class attribute, a module attribute, a global list) is set by ``before_call`` from
the call index alone, so every run of a sequence starts from and goes through the same states;
side effects inside the function (appending to a global list, ``global`` stores, in-place
updates of inputs, of their views and of global tensors) are what Dynamo must replay.
"""

from __future__ import annotations

from torchsmith.generate.python.builder import Builder, Fragment
from torchsmith.generate.python.frags_control import NUMBERS, SCALES


# -- Dynamo: graph breaks and side effects ------------------------------------------------------------
def graph_break(b: Builder) -> None:
    v = b.rng.randrange(4)
    if v == 0:
        b.emit("h = h * 0.5", "torch._dynamo.graph_break()", "h = h + 1.0")
    elif v == 1:  # in a loop: Dynamo skips that frame, so the loop lives in a helper
        b.top(
            "_loop_with_break",
            "def _loop_with_break(t, n):\n"
            "    for i in range(n):\n"
            "        t = t * 0.75 + i\n"
            "        torch._dynamo.graph_break()\n"
            "    return t",
        )
        b.emit("h = _loop_with_break(h, 2)")
    elif v == 2:
        b.top(
            "_with_break",
            "def _with_break(t):\n"
            "    t = t + 1.0\n"
            "    torch._dynamo.graph_break()\n"
            "    return t * 0.5",
        )
        b.emit("h = _with_break(h)")
    else:
        b.emit(
            "with torch.no_grad():",
            "    h = h * 2.0",
            "    torch._dynamo.graph_break()",
            "    h = h - 1.0",
        )
    b.feature("graph_break")


def global_mutation(b: Builder) -> None:
    v = b.rng.randrange(5)
    if v == 0:
        log = b.fresh("LOG")
        b.top(log, f"{log} = []")
        b.emit(f"{log}.append(h.shape[-1])", f"h = h + len({log}) * 0.1")
    elif v == 1:
        log = b.fresh("HIST")
        b.top(log, f"{log} = []")
        b.emit(f"{log}.append(h.detach().mean())", f"h = h + torch.stack({log}).sum() * 0.1")
    elif v == 2:
        log = b.fresh("COUNTS")
        b.top(log, f"{log} = {{}}")
        b.emit(
            f'{log}["n"] = {log}.get("n", 0) + 1',
            f'h = h * (1.0 + 0.1 * {log}["n"])',
        )
    elif v == 3:
        reg = b.fresh("Registry")
        b.top(reg, f"class {reg}:\n    items = []")
        log = f"{reg}.items"
        b.emit(f"{log}.append(h.sum())", f"h = h + len({log}) * 0.1")
    else:
        total = b.fresh("TOTAL")
        b.top(total, f"{total} = 0")
        b.emit(f"global {total}", f"{total} = {total} + 1", f"h = h + {total} * 0.1")
        b.on_before("if i == 0:", f"    {total} = 0", globals_=[total])
        b.feature("global_store")
        return
    b.on_before("if i == 0:", f"    {log}.clear()")


def global_tensor(b: Builder) -> None:
    """A global tensor (a function's globals are fresh copies in every run) or, in a module, a
    registered buffer (the model is rebuilt every run), read or updated in place."""
    f = b.last
    if b.module:
        name = b.fresh("buf")
        b.init.append(f'self.register_buffer("{name}", torch.linspace(-1.0, 1.0, {f}))')
        buf, held = f"self.{name}", f"target.{name}"
    else:
        buf = held = b.fresh("BUF")
        b.top(buf, f"{buf} = torch.linspace(-1.0, 1.0, {f})")
    if b.rng.random() < 0.5:
        b.emit(f"{buf}.add_(h.detach().mean() * 0.1)", f"h = h + {buf}")
    else:
        b.emit(f"h = h + {buf} * 0.5")
        if b.rng.random() < 0.7:
            b.on_before("if i > 0:", f"    {held}.mul_(0.5)")


def global_scalar(b: Builder) -> None:
    name = b.fresh("GAIN")
    v = b.rng.randrange(4)
    if v == 0:  # a number that may change type between calls (int <-> float)
        b.top(name, f"{name} = 1.5")
        b.emit(f"h = h * {name} + 0.1")
        values: tuple[str, ...] = NUMBERS + SCALES
    elif v == 1:
        b.top(name, f"{name} = True")
        b.emit(f"if {name}:", "    h = torch.tanh(h)", "else:", "    h = h * 0.5")
        values = ("True", "False")
    elif v == 2:
        b.top(name, f"{name} = 2")
        b.emit(f"for _ in range({name}):", "    h = h * 0.75 + 0.1")
        values = ("1", "2", "3")
    else:  # a global dict whose keys and values change (it is refilled, never rebound)
        name = b.fresh("TABLE")
        b.top(name, f'{name} = {{"a": 0.5, "b": 1.0}}')
        b.emit(f"for k, v in {name}.items():", '    h = h * v if k == "a" else h + v')
        tables = ('{"a": 0.5, "b": 1.0}', '{"b": 0.25}', '{"b": -0.5, "a": 2.0}', '{"a": 1.5}')
        if b.sequence or b.rng.random() < 0.3:
            b.on_before(f"{name}.clear()", f"{name}.update({b.before_choice(tables)})")
        return
    if b.sequence or b.rng.random() < 0.3:
        b.on_before(f"{name} = {b.before_choice(values)}", globals_=[name])


def class_attr(b: Builder) -> None:
    knobs = b.fresh("Knobs")
    b.top(
        knobs,
        f"class {knobs}:\n"
        "    factor = 2.0\n"
        "    shift = 0.5\n\n"
        "    @classmethod\n"
        "    def apply(cls, t):\n"
        "        return t * cls.factor + cls.shift",
    )
    v = b.rng.randrange(3)
    if v == 0:
        b.emit(f"h = h * {knobs}.factor * 0.5 + {knobs}.shift")
        setter = f"{knobs}.factor = {b.before_choice(SCALES)}"
    elif v == 1:
        b.emit(f"h = {knobs}.apply(h) * 0.5")
        setter = f"{knobs}.shift = {b.before_choice(SCALES)}"
    else:
        inst = knobs.upper()
        b.top(inst, f"{inst} = {knobs}()")
        b.emit(f"h = h * {inst}.factor * 0.5")
        setter = f"{inst}.factor = {b.before_choice(SCALES)}"
    if b.sequence or b.rng.random() < 0.3:
        b.on_before(setter)


# -- inputs: in place, views, aliasing ---------------------------------------------------------------
X_VIEW_OPS = (
    "x[0].add_(1.0)",
    "x.view(-1).mul_(0.5)",
    "x[:, :1].zero_()",
    "x.select(-1, 0).fill_(0.5)",
    "x.narrow(0, 0, 1).mul_(-1.0)",
    "x.unsqueeze(0).add_(0.25)",
    "x.transpose(0, -1)[0].sub_(0.5)",
    "x.diagonal(dim1=0, dim2=-1).add_(1.0)",
)


def inplace_input(b: Builder) -> None:
    if b.rng.random() < 0.75:
        b.emit(b.choice(X_VIEW_OPS))
        b.feature("inplace_input_view")
        if b.rng.random() < 0.5:
            b.emit("h = h + x.mean() * 0.1")
        return
    y = b.param("y", "tensor", (f"torch.randn({b.last}, generator=g)",))
    op = b.choice((f"{y}.add_(0.5)", f"{y}[0].mul_(2.0)", f"{y}.view(-1)[::2].zero_()"))
    b.emit(op, f"h = h + {y}")
    b.feature("inplace_input" if op.startswith(f"{y}.add_") else "inplace_input_view")


def inplace_view(b: Builder) -> None:
    cloned = b.rng.random() < 0.7
    if cloned:
        b.emit("h = h.clone(memory_format=torch.contiguous_format)")
    else:
        b.feature("inplace_alias")
    ops = ["h[:, 0].mul_(2.0)", "h.narrow(-1, 0, 1).add_(1.0)", "h[..., -1:].zero_()"]
    if cloned:
        ops.append("h.view(-1)[::2].mul_(0.5)")
    b.emit(b.choice(ops))


def alias_output(b: Builder) -> None:
    b.output(b.choice(("x", "x[0]", "x.view(-1)", "x.transpose(0, 1)", "h", "h[..., :1]")))
    b.feature("alias_output")


def _unaliased(b: Builder, alias: str, i: int) -> str:
    """A fresh tensor shaped like ``alias`` (a view of x) in call ``i``."""
    bt, rest = b.batch[i], list(b.x_rest)
    shape = {
        "x[1:]": [bt - 1, *rest],
        "x[-1:]": [1, *rest],
        "x[0]": rest,
        "x.select(-1, 0)": [bt, *rest[:-1]],
        "x[:, :1]": [bt, 1, *rest[1:]],
        "x[:, 1:]": [bt, rest[0] - 1, *rest[1:]],
        "x[..., ::2]": [bt, *rest[:-1], (rest[-1] + 1) // 2],
        "x.narrow(-1, 0, 1)": [bt, *rest[:-1], 1],
        "x.transpose(0, 1)": [rest[0], bt, *rest[1:]],
        "x.unsqueeze(0)": [1, bt, *rest],
    }[alias]
    dtype = "" if b.dtypes[i] == "float32" else f", dtype=torch.{b.dtypes[i]}"
    return f"torch.randn({', '.join(map(str, shape))}, generator=g{dtype})"


#: Views of ``x`` passed beside it (x has two dims at least): AOTAutograd merges the pair into a
#: synthetic base when one is mutated, and regenerates each from it (offsets, steps, transposes,
#: new dims; under dynamic shapes with symbolic strides).
ALIASES = (
    "x[1:]",
    "x[0]",
    "x.select(-1, 0)",
    "x[:, :1]",
    "x[-1:]",
    "x[:, 1:]",
    "x[..., ::2]",
    "x.narrow(-1, 0, 1)",
    "x.transpose(0, 1)",
    "x.unsqueeze(0)",
)


def alias_inputs(b: Builder) -> None:
    alias = b.choice(ALIASES)
    values = [alias] * b.ncalls
    if b.sequence and b.rng.random() < 0.5:  # aliased in some calls only (a recompile or not)
        k = b.rng.randrange(b.ncalls)
        values[k] = _unaliased(b, alias, k)
    y = b.param_values("y", "alias", values)
    v = b.rng.randrange(6)
    if v == 0:
        b.emit(f"{y}.mul_(2.0)", "h = h + x.mean() * 0.1")
    elif v == 1:
        b.emit("x.add_(0.5)", f"h = h + {y}.mean() * 0.5")
    elif v == 2:
        b.emit("x.add_(1.0)")
        b.output(f"{y}[0]")
    elif v == 3:
        b.emit(f"{y}.zero_()", "h = h * 0.5 + x.sum() * 0.01")
    elif v == 4:
        b.emit(f"{y}.clamp_(-0.5, 0.5)", "h = h + x.amax() * 0.1")
    else:  # the aliased input itself is returned, after a mutation through its base
        b.emit("x.mul_(0.5)")
        b.output(y)
    b.feature("alias_inputs", "inplace_input_view")


# -- modules --------------------------------------------------------------------------------------
def module_attr(b: Builder) -> None:
    attr = b.fresh("knob")
    v = b.rng.randrange(4)
    if v == 0:
        b.init.append(f"self.{attr} = 0.5")
        b.emit(f"h = h * self.{attr}")
        setter = f"target.{attr} = {b.before_choice(SCALES)}"
    elif v == 1:
        b.init.append(f"self.{attr} = True")
        b.emit(f"if self.{attr}:", "    h = h + h.flip(0) * 0.5")
        setter = f"target.{attr} = {b.before_choice(('True', 'False'))}"
    elif v == 2:
        b.init.append(f"self.{attr} = 2")
        b.emit(f"for _ in range(self.{attr}):", "    h = h * 0.75 + 0.1")
        setter = f"target.{attr} = {b.before_choice(('1', '2', '3'))}"
    else:
        b.init.append(f"self.{attr} = nn.Tanh()")
        b.emit(f"h = self.{attr}(h)")
        setter = f"target.{attr} = nn.Sigmoid() if i % 2 else nn.Tanh()"
    if b.sequence or b.rng.random() < 0.3:
        b.on_before(setter)


def module_dict(b: Builder) -> None:
    f = b.last
    lin = f"nn.Linear({f}, {f})"
    name = b.fresh("blocks")
    v = b.rng.randrange(4)
    if v == 0:
        b.init.append(f'self.{name} = nn.ModuleDict({{"a": {lin}, "b": {lin}}})')
        b.emit(f"for key, m in self.{name}.items():", "    h = h + m(h) * 0.5")
    elif v == 1:
        b.init.append(f"self.{name} = nn.ModuleList([{lin} for _ in range(2)])")
        b.emit(f"for i, m in enumerate(self.{name}):", "    h = h + m(h) * (0.5 / (i + 1))")
    elif v == 2:
        b.init.append(f'self.{name} = nn.ModuleDict({{"a": {lin}, "b": {lin}}})')
        b.emit(
            f'h = self.{name}["b"](h) + self.{name}["a"](h) * 0.5',
            f'if "c" in self.{name}:',
            "    h = h * 2.0",
        )
    else:
        b.init.append(f"self.{name} = nn.Sequential({lin}, nn.Tanh())")
        b.emit(f"h = h + self.{name}(h) - self.{name}[0](h) * 0.5")


def module_shadow(b: Builder) -> None:
    f = b.last
    proj = b.fresh("proj")
    b.init.append(f"self.{proj} = nn.Linear({f}, {f}, bias=False)")
    b.emit(f"h = self.{proj}(h) * 0.5 + h")
    if not b.sequence:
        return
    b.top(
        "_replacement",
        "def _replacement(m, v):\n"
        "    new = nn.Linear(m.in_features, m.out_features, bias=False).to(m.weight.dtype)\n"
        "    with torch.no_grad():\n"
        "        new.weight.fill_(v)\n"
        "    return new",
    )
    if b.rng.random() < 0.5:
        b.on_before(
            "if i == 1:",
            f'    object.__setattr__(target, "{proj}", _replacement(target.{proj}, 0.1))',
        )
        b.feature("shadowed_submodule")
    else:
        b.on_before("if i == 1:", f"    target.{proj} = _replacement(target.{proj}, 0.1)")


FRAGMENTS_3 = [
    Fragment("graph_break", graph_break, weight=1.2),
    Fragment("global_mutation", global_mutation, weight=1.2),
    Fragment("global_tensor", global_tensor),
    Fragment("global_scalar", global_scalar, weight=1.2, fullgraph=True),
    Fragment("class_attr", class_attr, weight=1.2, fullgraph=True),
    Fragment("inplace_input", inplace_input, weight=1.3, fullgraph=True),
    Fragment("inplace_view", inplace_view, fullgraph=True),
    Fragment("alias_output", alias_output, fullgraph=True),
    Fragment("alias_inputs", alias_inputs, fullgraph=True),
    Fragment("module_attr", module_attr, where="module", weight=3.0, fullgraph=True),
    Fragment("module_dict", module_dict, where="module", weight=3.0, fullgraph=True),
    Fragment("module_shadow", module_shadow, where="module", weight=2.0),
]

__all__ = ["FRAGMENTS_3", "X_VIEW_OPS"]
